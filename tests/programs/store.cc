// C++ as a new user writes it: a class holding a std::vector of a class
// template, summed in a member function.
//
//   store [ROUNDS]
//
// shop::Store::sum_weights() reads items_[i].weight: the base register
// comes from this->items_._M_impl._M_start, where _M_impl begins with
// the empty allocator base class that shares its address with _M_start.
// The profiler must give the element's type and field
// (struct shop::Item<double>.weight), and a filter must find the
// function by its unqualified name (FUNC == "sum_weights").
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace shop {
template <typename T> struct Item {
	long id;
	T weight;
	char name[48];
};

class Store {
public:
	explicit Store(size_t n) : items_(n)
	{
		for (size_t i = 0; i < n; i++)
			items_[i].weight = (double)(i % 7);
	}
	__attribute__((noinline)) double sum_weights();

private:
	long hits_ = 0;
	std::vector<Item<double>> items_;
};

double Store::sum_weights()
{
	double s = 0;

	hits_++; /* not pure: every call is made */
	for (size_t i = 0; i < items_.size(); i++)
		s += items_[i].weight;
	return s;
}
} // namespace shop

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 4000;
	shop::Store st(1 << 16);
	double s = 0;

	for (long r = 0; r < rounds; r++)
		s += st.sum_weights();
	printf("%f\n", s);
	return 0;
}
