/*
** The kernel's signal frame on x86-64, as far as the unwinder reads it.
*/
#ifndef LUATOP_UNWIND_SIGFRAME_H
#define LUATOP_UNWIND_SIGFRAME_H

/* Offsets into the kernel's struct rt_sigframe on x86-64, from the sp at the
** trampoline: the handler's ret popped pretcode, so sp is the ucontext, and
** its uc_mcontext (struct sigcontext) is 40 bytes in (glibc's __restore_rt
** CFI says the same: CFA = [rsp + 40 + 15*8]). */
#define LT_SIGFRAME_MCTX	40
#define LT_SIGCTX_RBP		(10 * 8)
#define LT_SIGCTX_RSP		(15 * 8)
#define LT_SIGCTX_RIP		(16 * 8)

#endif
