/*
 * Types whose DWARF, in a relocatable object (gcc -c, a kernel module),
 * is mostly relocations: member and type names longer than a few letters
 * (offsets into .debug_str), units that share abbreviations and line
 * tables with others once linked (ld -r), globals and a thread-local
 * (addresses and TLS offsets), functions with inlined code and split hot
 * and cold parts (address ranges and location lists); and members with
 * alignments of their own, as kernel structs have.  The e2e test
 * layout_reloc.sh compiles this file with -c for several machines and
 * compares `dsprof layout` of each object with pahole's.
 *
 * It needs no C library, so that Clang can build it for any target:
 *
 *   objtypes [N]   walks a small list N times and exits with a checksum
 */
#include <stddef.h>
#include <stdint.h>

enum request_state { REQUEST_IDLE, REQUEST_QUEUED, REQUEST_RUNNING, REQUEST_DONE };

struct list_links {
	struct list_links *forward;
	struct list_links *backward;
};

struct request_header {
	uint16_t header_version;
	uint8_t header_flags;
	/* a hole before the 64-bit field */
	uint64_t request_identifier;
	enum request_state current_state;
	unsigned int priority_class : 3;
	unsigned int is_synchronous : 1;
	unsigned int retry_counter : 5;
	/* bit fields end in a bit hole */
	char debugging_label[13];
};

union request_payload {
	uint64_t payload_as_integer;
	double payload_as_double;
	unsigned char payload_bytes[24];
	struct {
		uint32_t fragment_offset;
		uint32_t fragment_length;
	} fragment_descriptor;
};

typedef int (*completion_callback)(void *callback_argument, int completion_status);

/* Aligned as the kernel's struct callback_head is: members of this type
 * carry their own alignment (pahole's "forced alignments"). */
struct deferred_work {
	struct deferred_work *next_work;
	void (*work_function)(struct deferred_work *);
} __attribute__((aligned(sizeof(void *))));

struct request_block {
	struct list_links queue_links;
	struct request_header header;
	union request_payload payload;
	completion_callback on_completion;
	void *callback_argument;
	struct {
		uint32_t submitted_ticks;
		uint32_t completed_ticks;
	} timing_record;
	struct request_block *parent_request;
	char padding_tail;
	/* a hole its alignment forces */
	_Alignas(32) uint64_t completion_sequence;
	union {
		struct deferred_work cleanup_work;
		uint64_t cleanup_cookie;
	} __attribute__((aligned(16)));
	struct deferred_work release_work;
};

typedef struct {
	struct request_block *request_slots[70]; /* past a cache line */
	size_t occupied_slots;
	int (*slot_comparator)(const struct request_block *, const struct request_block *);
} request_table;

struct variable_record {
	uint32_t record_length;
	uint16_t record_kind;
	unsigned char record_contents[];
};

struct request_block request_pool[4];
request_table global_request_table;
static __thread uint64_t per_thread_counter;

static int count_completion(void *callback_argument, int completion_status)
{
	*(int *)callback_argument += completion_status;
	return 0;
}

static inline uint64_t request_weight(const struct request_block *r)
{
	return r->header.request_identifier * r->header.priority_class + r->payload.payload_as_integer;
}

__attribute__((noinline, cold)) static uint64_t rare_path(struct request_block *r, int n)
{
	r->header.retry_counter = (unsigned)n & 31;
	return r->header.retry_counter;
}

__attribute__((noinline)) static uint64_t walk_requests(struct list_links *head, int rounds)
{
	uint64_t sum = 0;

	for (int i = 0; i < rounds; i++)
		for (struct list_links *l = head->forward; l != head; l = l->forward) {
			struct request_block *r = (struct request_block *)l;
			sum += request_weight(r);
			if (__builtin_expect(sum % 1000003 == 7, 0))
				sum += rare_path(r, i);
			r->on_completion(r->callback_argument, (int)(sum & 1));
		}
	per_thread_counter += sum;
	return sum + per_thread_counter;
}

int main(int argc, char **argv)
{
	struct list_links head = {&head, &head};
	int completions = 0;
	int rounds = argc > 1 ? argv[1][0] - '0' : 3;

	for (size_t i = 0; i < sizeof request_pool / sizeof request_pool[0]; i++) {
		struct request_block *r = &request_pool[i];
		r->header.request_identifier = i + 1;
		r->header.priority_class = (unsigned)i & 7;
		r->payload.payload_as_integer = i * 3;
		r->on_completion = count_completion;
		r->callback_argument = &completions;
		r->queue_links.forward = &head;
		r->queue_links.backward = head.backward;
		head.backward->forward = &r->queue_links;
		head.backward = &r->queue_links;
		global_request_table.request_slots[i] = r;
	}
	global_request_table.occupied_slots = 4;
	return (int)((walk_requests(&head, rounds) + (uint64_t)completions) & 0x7f);
}
