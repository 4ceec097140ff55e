/*
 * One hot loop per backtracking verdict, in hand-written x86-64 assembly so
 * that the instructions around every sampled IP are known whatever the
 * compiler: with cpu-clock samples, nearly every sample of scenario NAME
 * gets verdict NAME (see backtrack/backtrack.h); not-memory needs precise
 * samples and comes from page faults on fetching code.
 *
 *   verdicts SCENARIO [SECONDS]
 *
 *   ok                     loads before every sampled instruction
 *   crossed-branch-target  an ALU loop that ends with a load: the walk back
 *                          from the ALU part meets the loop's head
 *   no-memory-access       an ALU loop without a load
 *   after-call             calls back to back: IPs are return addresses
 *   after-jump             a block entered by a `ret` to a pushed address
 *   indirect-jumps         a function with a jump through memory
 *   tail-call              ok's loop in a function that ends with a tail
 *                          call through a function pointer (`jmp *%rax`):
 *                          it leaves the function, so the verdict is ok
 *   trigger-not-found      100 ALU instructions: more than the walk limit
 *   no-function            code outside every symbol's bounds
 *   bad-decode             a byte that does not decode in the function
 *   no-code                a loop copied to anonymous memory (JIT code)
 *   not-memory             (-e page-faults) a code page dropped and fetched
 *                          again, 4000 times: the fault's IP is an ALU
 *                          instruction
 *   stack-call             (-e page-faults) a recursion 200,000 calls deep
 *                          whose only stack access is the call's push of
 *                          the return address: the faults are the stack's
 *   stack-callptr          (-e page-faults, --sim -e sim:stores) the same
 *                          recursion through a function pointer, `call
 *                          *v_deep_next(%rip)`: the instruction reads the
 *                          global and writes the stack, and the faults and
 *                          stores are the stack's, not the pointer's
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Every loop takes its iteration count in %rdi (and a readable buffer in
 * %rsi), follows the SysV ABI and clobbers only caller-saved registers. */
__asm__(
	"	.text\n"
	"	.p2align 4\n"
	"	.type v_ok, @function\n"
	"v_ok:\n"
	"	xor %eax, %eax\n"
	"1:	mov (%rsi), %rdx\n"
	"	add %rdx, %rax\n"
	"	mov 8(%rsi), %rdx\n"
	"	add %rdx, %rax\n"
	"	mov 16(%rsi), %rdx\n"
	"	add %rdx, %rax\n"
	"	mov 24(%rsi), %rdx\n"
	"	add %rdx, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size v_ok, .-v_ok\n"

	/* SQLite's getCellInfo ends with `jmp` to pPage->xParseCell */
	"	.p2align 4\n"
	"	.type v_tail, @function\n"
	"v_tail:\n"
	"	xor %eax, %eax\n"
	"1:	mov (%rsi), %rdx\n"
	"	add %rdx, %rax\n"
	"	mov 8(%rsi), %rdx\n"
	"	add %rdx, %rax\n"
	"	mov 16(%rsi), %rdx\n"
	"	add %rdx, %rax\n"
	"	mov 24(%rsi), %rdx\n"
	"	add %rdx, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	mov v_tail_next(%rip), %rax\n"
	"	jmp *%rax\n"
	"	.size v_tail, .-v_tail\n"
	"	.type v_ret, @function\n"
	"v_ret:\n"
	"	ret\n"
	"	.size v_ret, .-v_ret\n"
	"	.data\n"
	"v_tail_next:\n"
	"	.quad v_ret\n"
	"	.text\n"

	"	.p2align 4\n"
	"	.type v_target, @function\n"
	"v_target:\n"
	"	mov $3, %eax\n"
	"1:	imul %rax, %rax\n"
	"	imul %rax, %rax\n"
	"	imul %rax, %rax\n"
	"	imul %rax, %rax\n"
	"	mov (%rsi), %rdx\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size v_target, .-v_target\n"

	"	.p2align 4\n"
	"	.type v_nomem, @function\n"
	"v_nomem:\n"
	"	mov $3, %eax\n"
	"1:	imul %rax, %rax\n"
	"	imul %rax, %rax\n"
	"	imul %rax, %rax\n"
	"	imul %rax, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size v_nomem, .-v_nomem\n"

	"	.p2align 4\n"
	"	.type v_leaf, @function\n"
	"v_leaf:\n"
	"	ret\n"
	"	.size v_leaf, .-v_leaf\n"

	"	.p2align 4\n"
	"	.type v_call, @function\n"
	"v_call:\n"
	"1:	call v_leaf\n"
	"	call v_leaf\n"
	"	call v_leaf\n"
	"	call v_leaf\n"
	"	call v_leaf\n"
	"	call v_leaf\n"
	"	call v_leaf\n"
	"	call v_leaf\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size v_call, .-v_call\n"

	/* The block after `ret` is reached by returning to its pushed address:
	 * no direct branch names it, and the instruction before it never falls
	 * through. */
	"	.p2align 4\n"
	"	.type v_jump, @function\n"
	"v_jump:\n"
	"	mov $3, %eax\n"
	"1:	lea 2f(%rip), %rdx\n"
	"	push %rdx\n"
	"	ret\n"
	"2:	.rept 20\n"
	"	imul %rax, %rax\n"
	"	.endr\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size v_jump, .-v_jump\n"

	/* A jump through memory that is neither a jump table nor a tail call:
	 * it may land anywhere in the function, whose blocks are unknown. */
	"	.p2align 4\n"
	"	.type v_indirect, @function\n"
	"v_indirect:\n"
	"	lea 2f(%rip), %rdx\n"
	"	mov %rdx, (%rsi)\n"
	"	mov $3, %eax\n"
	"1:	.rept 8\n"
	"	imul %rax, %rax\n"
	"	.endr\n"
	"	jmp *(%rsi)\n"
	"2:	.rept 8\n"
	"	imul %rax, %rax\n"
	"	.endr\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size v_indirect, .-v_indirect\n"

	"	.p2align 4\n"
	"	.type v_far, @function\n"
	"v_far:\n"
	"	mov $3, %eax\n"
	"1:	.rept 100\n"
	"	imul %rax, %rax\n"
	"	.endr\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size v_far, .-v_far\n"

	/* v_nofunc's symbol covers its first jump only; the loop lies between
	 * symbols. */
	"	.p2align 4\n"
	"	.type v_nofunc, @function\n"
	"v_nofunc:\n"
	"	jmp .Lnofunc_body\n"
	"	.size v_nofunc, .-v_nofunc\n"
	".Lnofunc_body:\n"
	"	mov (%rsi), %rax\n"
	"1:	add (%rsi), %rax\n"
	"	imul %rax, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"

	/* A byte that is no instruction in 64-bit mode (push es), jumped over:
	 * the function cannot be decoded from its start. */
	"	.p2align 4\n"
	"	.type v_bad, @function\n"
	"v_bad:\n"
	"	jmp 1f\n"
	"	.byte 0x06\n"
	"1:	add (%rsi), %rax\n"
	"	imul %rax, %rax\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	"	.size v_bad, .-v_bad\n"

	/* Alone on its page, so that dropping the page drops nothing else;
	 * its first instruction accesses no memory. */
	"	.p2align 12\n"
	"	.type v_notmem, @function\n"
	"v_notmem:\n"
	"	imul %rdi, %rdi\n"
	"	mov %rdi, %rax\n"
	"	ret\n"
	"	.size v_notmem, .-v_notmem\n"
	"	.p2align 12\n"

	"	.type v_deep, @function\n"
	"v_deep:\n"
	"	dec %rdi\n"
	"	jz 1f\n"
	"	call v_deep\n"
	"1:	ret\n"
	"	.size v_deep, .-v_deep\n"

	"	.type v_deepptr, @function\n"
	"v_deepptr:\n"
	"	dec %rdi\n"
	"	jz 1f\n"
	"	call *v_deep_next(%rip)\n"
	"1:	ret\n"
	"	.size v_deepptr, .-v_deepptr\n"
	"	.text\n");

void v_ok(long n, void *buf);
void v_target(long n, void *buf);
void v_nomem(long n, void *buf);
void v_call(long n, void *buf);
void v_jump(long n, void *buf);
void v_indirect(long n, void *buf);
void v_tail(long n, void *buf);
void v_far(long n, void *buf);
void v_nofunc(long n, void *buf);
void v_bad(long n, void *buf);
long v_notmem(long n);
void v_deep(long n);
void v_deepptr(long n);
/* v_deepptr's callee: itself */
void (*v_deep_next)(long) = v_deepptr;

/* The body of v_nomem's loop, for anonymous memory:
 *   mov $3,%eax; 1: imul %rax,%rax (x4); dec %rdi; jnz 1b; ret */
static const uint8_t jit_code[] = {
	0xb8, 0x03, 0x00, 0x00, 0x00,
	0x48, 0x0f, 0xaf, 0xc0, 0x48, 0x0f, 0xaf, 0xc0,
	0x48, 0x0f, 0xaf, 0xc0, 0x48, 0x0f, 0xaf, 0xc0,
	0x48, 0xff, 0xcf,
	0x75, 0xeb,
	0xc3,
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs fn in slices of a million iterations for the given time. */
static void run_for(void (*fn)(long, void *), double seconds)
{
	static uint64_t buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	double end = now() + seconds;
	do
		fn(1000000, buf);
	while (now() < end);
}

static int run_nocode(double seconds)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(p, jit_code, sizeof jit_code);
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
		perror("mprotect");
		return 1;
	}
	run_for((void (*)(long, void *))p, seconds);
	return 0;
}

/* Each round drops the page of v_notmem from the page tables; calling it
 * then faults on fetching its first instruction. */
static int run_notmem(void)
{
	uintptr_t page = (uintptr_t)v_notmem & ~(uintptr_t)4095;
	long sum = 0;
	for (int i = 0; i < 4000; i++) {
		if (madvise((void *)page, 4096, MADV_DONTNEED) != 0) {
			perror("madvise");
			return 1;
		}
		sum += v_notmem(i);
	}
	printf("%ld\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(long, void *);
	} loops[] = {
		{"ok", v_ok},
		{"crossed-branch-target", v_target},
		{"no-memory-access", v_nomem},
		{"after-call", v_call},
		{"after-jump", v_jump},
		{"indirect-jumps", v_indirect},
		{"tail-call", v_tail},
		{"trigger-not-found", v_far},
		{"no-function", v_nofunc},
		{"bad-decode", v_bad},
	};
	double seconds = argc > 2 ? atof(argv[2]) : 0.5;

	if (argc < 2)
		goto usage;
	for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++)
		if (strcmp(argv[1], loops[i].name) == 0) {
			run_for(loops[i].fn, seconds);
			return 0;
		}
	if (strcmp(argv[1], "no-code") == 0)
		return run_nocode(seconds);
	if (strcmp(argv[1], "not-memory") == 0)
		return run_notmem();
	if (strcmp(argv[1], "stack-call") == 0) {
		v_deep(200000);
		return 0;
	}
	if (strcmp(argv[1], "stack-callptr") == 0) {
		v_deepptr(200000);
		return 0;
	}
usage:
	fprintf(stderr, "usage: verdicts ok|crossed-branch-target|no-memory-access|after-call|after-jump|indirect-jumps|tail-call|"
			"trigger-not-found|no-function|bad-decode|no-code|not-memory|stack-call|stack-callptr [SECONDS]\n");
	return 2;
}
