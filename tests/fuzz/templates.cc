// A seed for fuzz_elf (tests/fuzz/run.sh builds it): the C++ that DWARF
// readers meet in real programs, in one small file.  Class templates with
// type and non-type parameters, a partial and a full specialization, a
// variadic template, namespaces (nested, anonymous, inline), virtual and
// multiple inheritance, a template template parameter, enum classes, a
// union and bit fields inside a template, lambdas, rvalue references, and
// the standard library's own templates (vector, map, unique_ptr, string).
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace outer {
inline namespace v1 {
namespace inner {

enum class Kind : unsigned char { leaf, branch, other = 200 };

template <typename T, int N> struct Ring {
	T slots[N];
	unsigned head : 12, tail : 12, full : 1;
	union {
		T spare;
		char raw[sizeof(T)];
	} u;
	void put(const T &v)
	{
		slots[head] = v;
		head = (head + 1) % N;
	}
};

template <typename T> struct Ring<T *, 1> { // partial specialization
	T *only;
};

template <> struct Ring<bool, 8> { // full specialization
	unsigned char bits;
};

struct Base {
	virtual ~Base() = default;
	virtual long weight() const { return 1; }
	long id = 0;
};

struct Mixin {
	double scale = 1.5;
};

template <typename T> struct Node : Base, Mixin {
	T value{};
	Node *next = nullptr;
	Kind kind = Kind::leaf;
	long weight() const override { return static_cast<long>(sizeof(T)) * id; }
};

template <template <typename> class Holder, typename T> struct Wrap {
	Holder<T> held;
};

template <typename... Ts> struct Tuple;
template <> struct Tuple<> {};
template <typename T, typename... Ts> struct Tuple<T, Ts...> : Tuple<Ts...> {
	T head;
};

} // namespace inner
} // namespace v1
} // namespace outer

namespace {
struct Hidden {
	std::map<std::string, std::vector<int>> index;
	std::unique_ptr<outer::inner::Node<double>> root;
};
} // namespace

template <typename F> static long apply(F &&f, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += f(i);
	return s;
}

int main(int argc, char **argv)
{
	using namespace outer::inner;
	Ring<int, 16> ring{};
	Ring<Node<char> *, 1> one{};
	Ring<bool, 8> bits{};
	Wrap<Node, float> wrap{};
	Tuple<int, double, Kind> tup{};
	Hidden h;
	Node<long> n;

	for (int i = 0; i < argc * 20; i++)
		ring.put(i);
	one.only = nullptr;
	bits.bits = static_cast<unsigned char>(argc);
	wrap.held.value = 2.5f;
	tup.head = argc;
	h.index[argc > 1 ? argv[1] : "none"].push_back(ring.slots[3]);
	h.root.reset(new Node<double>());
	n.id = argc;
	std::printf("%ld %ld %u %zu\n", apply([&](long i) { return i * n.weight(); }, 10), h.root->weight(),
		    ring.head, h.index.size());
	return 0;
}
