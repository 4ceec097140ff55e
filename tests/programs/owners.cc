// C++ ownership and closures: the element a hot loop reads is reached
// through a std::unique_ptr (whose empty deleter shares the pointer's
// bytes), a std::shared_ptr, or a lambda's reference parameter.  One
// std::vector instantiation only: pahole, which e2e/layout compares
// with, prints one of the types named _Vector_impl.
//
// Usage: owners unique|shared|lambda [SECONDS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace zoo {
struct Animal {
	long legs;
	double weight;
	long pad[6];
};

struct Keeper {
	std::unique_ptr<Animal[]> pens;
	long n;
};
} // namespace zoo

static double now()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

__attribute__((noinline)) static long by_unique(const zoo::Keeper &k, long rounds)
{
	long s = 0;
	for (long r = 0; r < rounds; r++)
		for (long i = 0; i < k.n; i++)
			s += k.pens[i].legs;
	return s;
}

__attribute__((noinline)) static double by_shared(const std::vector<std::shared_ptr<zoo::Animal>> &v,
						   long rounds)
{
	double s = 0;
	for (long r = 0; r < rounds; r++)
		for (const auto &p : v)
			s += p->weight;
	return s;
}

__attribute__((noinline)) static long by_lambda(const zoo::Animal *v, long n, long rounds)
{
	long s = 0;
	auto add = [&s](const zoo::Animal &a) { s += a.legs; };
	for (long r = 0; r < rounds; r++)
		std::for_each(v, v + n, add);
	return s;
}

int main(int argc, char **argv)
{
	const char *sc = argc > 1 ? argv[1] : "unique";
	double end = now() + (argc > 2 ? atof(argv[2]) : 1.5);
	long n = 4096, sum = 0;
	zoo::Keeper k{std::unique_ptr<zoo::Animal[]>(new zoo::Animal[n]()), n};
	std::vector<std::shared_ptr<zoo::Animal>> shared;
	std::unique_ptr<zoo::Animal[]> plain(new zoo::Animal[n]());

	if (strcmp(sc, "unique") != 0 && strcmp(sc, "shared") != 0 && strcmp(sc, "lambda") != 0) {
		fprintf(stderr, "usage: owners unique|shared|lambda [SECONDS]\n");
		return 1;
	}
	for (long i = 0; i < n; i++)
		shared.push_back(std::make_shared<zoo::Animal>());
	while (now() < end) {
		if (!strcmp(sc, "unique"))
			sum += by_unique(k, 20);
		else if (!strcmp(sc, "shared"))
			sum += (long)by_shared(shared, 20);
		else
			sum += by_lambda(plain.get(), n, 20);
	}
	return sum == 42;
}
