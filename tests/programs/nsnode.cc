/*
 * C++ types of one name in two namespaces, a::Node (16 bytes) and b::Node
 * (48), each streamed through .y by an instance of one template, sumy<T>:
 * the profiler must name them "a::Node" and "b::Node", and charge
 * sumy<b::Node>'s samples to b::Node.y.
 *
 *   nsnode [ROUNDS]
 *
 * Fresh calloc'd arrays: the page faults of each are at its Node's y
 * (256 and 768 pages: they fit one ring buffer, see samename/tu1.c).
 */
#include <cstdio>
#include <cstdlib>

namespace a {
struct Node {
	long x;
	long y;
};
} // namespace a

namespace b {
struct Node {
	char pad[40];
	long y;
};
} // namespace b

template <typename T> __attribute__((noinline)) long sumy(T *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++) {
		p[i].y += i;
		s += p[i].y;
	}
	return s;
}

int main(int argc, char **argv)
{
	long n = 1L << 16, s = 0;
	int rounds = argc > 1 ? atoi(argv[1]) : 1;
	a::Node *pa = static_cast<a::Node *>(calloc(static_cast<size_t>(n), sizeof *pa));
	b::Node *pb = static_cast<b::Node *>(calloc(static_cast<size_t>(n), sizeof *pb));

	if (!pa || !pb)
		return 1;
	for (int r = 0; r < rounds; r++) {
		s += sumy(pa, n);
		s += sumy(pb, n);
	}
	printf("%ld\n", s);
	free(pa);
	free(pb);
	return 0;
}
