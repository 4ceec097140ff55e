// C++ idioms a new user's code is made of, each in a function of its own
// that reads one field of one type in a loop (tests/e2e/cxxvec.sh):
//
//   idioms [ROUNDS]
//
// by_reference   a range-for over const references: Animal.mass
// by_lambda      std::for_each with a lambda capturing by reference, the
//                element its parameter: Animal.legs
// by_unique      c.animal->mass: the std::unique_ptr's pointer (a field
//                of Cage), then Animal.mass
// by_shared      c.keeper->wage: the std::shared_ptr's pointer, then
//                Keeper.wage
// by_label       the characters of t.label, a short std::string: they
//                live in the string's own buffer (_M_local_buf), inside
//                the Tag, and are read through its _M_p
// by_label_array the same of an array from new Tag[n], whose block starts
//                with the count of elements (the Tag has a destructor),
//                with each Tag's id
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>
#include <algorithm>

namespace zoo {
struct Animal {
	long id;
	double mass;
	int legs;
	char pad[44];
};
struct Keeper {
	long id;
	long fed;
	double wage;
};
struct Tag {
	long id;
	std::string label;
	double weight;
};
struct Cage {
	std::unique_ptr<Animal> animal;
	std::shared_ptr<Keeper> keeper;
};

// a reference parameter
__attribute__((noinline)) double mass_of(const Animal &a) { return a.mass; }

__attribute__((noinline)) double by_reference(const std::vector<Animal> &v, long rounds)
{
	double s = 0;
	for (long r = 0; r < rounds; r++)
		for (const Animal &a : v)
			s += a.mass;
	return s;
}

// a lambda capturing by reference
__attribute__((noinline)) long by_lambda(const std::vector<Animal> &v, long rounds)
{
	long legs = 0;
	auto count = [&](const Animal &a) { legs += a.legs; };
	for (long r = 0; r < rounds; r++)
		std::for_each(v.begin(), v.end(), count);
	return legs;
}

// unique_ptr and shared_ptr targets
__attribute__((noinline)) double by_unique(const std::vector<Cage> &cages, long rounds)
{
	double s = 0;
	for (long r = 0; r < rounds; r++)
		for (const Cage &c : cages)
			s += c.animal->mass;
	return s;
}

__attribute__((noinline)) double by_shared(const std::vector<Cage> &cages, long rounds)
{
	double s = 0;
	for (long r = 0; r < rounds; r++)
		for (const Cage &c : cages)
			s += c.keeper->wage;
	return s;
}

// a short string's characters: in the Tag, not in a block of their own
__attribute__((noinline)) unsigned long by_label(const std::vector<Tag> &tags, long rounds)
{
	unsigned long h = 0;
	for (long r = 0; r < rounds; r++)
		for (const Tag &t : tags)
			for (char c : t.label)
				h = h * 31 + (unsigned char)c;
	return h;
}

// the same over new Tag[n]'s elements, with each one's id
__attribute__((noinline)) unsigned long by_label_array(const Tag *tags, size_t n, long rounds)
{
	unsigned long h = 0;
	for (long r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++) {
			h += (unsigned long)tags[i].id;
			for (char c : tags[i].label)
				h = h * 31 + (unsigned char)c;
		}
	return h;
}

} // namespace zoo

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	std::vector<zoo::Animal> animals(4096);
	std::vector<zoo::Cage> cages(4096);
	std::vector<zoo::Tag> tags(4096);
	zoo::Tag *more = new zoo::Tag[1024];
	for (size_t i = 0; i < cages.size(); i++) {
		animals[i].mass = (double)(i % 5);
		animals[i].legs = (int)(i % 4);
		cages[i].animal = std::make_unique<zoo::Animal>();
		cages[i].animal->mass = 1;
		cages[i].keeper = std::make_shared<zoo::Keeper>();
		cages[i].keeper->wage = 2;
		tags[i].id = (long)i;
		tags[i].label = "tag-" + std::to_string(i);
		if (i < 1024) {
			more[i].id = (long)i;
			more[i].label = "more-" + std::to_string(i);
		}
	}
	// grown by std::vector<long>::_M_realloc_insert, a function of the
	// library's headers built into the program: 13 blocks of 1 to 4096 ids
	std::vector<long> ids;
	for (long i = 0; i < 4096; i++)
		ids.push_back(i);
	double t = zoo::by_reference(animals, rounds) + zoo::mass_of(animals[3]) +
		   (double)zoo::by_lambda(animals, rounds) + zoo::by_unique(cages, rounds) +
		   zoo::by_shared(cages, rounds) + (double)ids.back();
	printf("%g %lu %lu\n", t, zoo::by_label(tags, rounds), zoo::by_label_array(more, 1024, rounds));
	delete[] more;
	return 0;
}
