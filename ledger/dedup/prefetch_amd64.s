#include "textflag.h"

// func prefetch(p *uint64)
//
// Asks for the cache line of p, without waiting for it: PREFETCHT0
// neither faults nor holds up the instructions after it.
TEXT ·prefetch(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET
