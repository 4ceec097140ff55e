// Virtual calls: each reads the object's vtable pointer (a field of the
// class, _vptr.Shape) and then a slot of the vtable, which is no object of
// the program's types: the profiler names it <vtable of geo::Shape>.
//
//   shapes [ROUNDS]
#include <cstdio>
#include <cstdlib>

namespace geo {
struct Shape {
	virtual ~Shape() {}
	virtual double area() const = 0;
	double scale = 1;
};
struct Square : Shape {
	double side = 2;
	double area() const override { return side * side * scale; }
};
struct Circle : Shape {
	double r = 1;
	double area() const override { return 3.14159 * r * r * scale; }
};
} // namespace geo

__attribute__((noipa)) double total(geo::Shape *const *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i]->area();
	return s;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	const size_t n = 4096;
	geo::Shape **v = new geo::Shape *[n];
	double s = 0;

	for (size_t i = 0; i < n; i++)
		v[i] = i % 2 ? static_cast<geo::Shape *>(new geo::Square) : new geo::Circle;
	for (long r = 0; r < rounds; r++)
		s += total(v, n);
	printf("%f\n", s);
	for (size_t i = 0; i < n; i++)
		delete v[i];
	delete[] v;
	return 0;
}
