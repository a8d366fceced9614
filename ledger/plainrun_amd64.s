#include "textflag.h"

// func plainRun(b []byte, i int) int
//
// The index of the first byte of b from i on that is a quote, a
// backslash, below 0x20 or from 0x80 on (strStop); len(b) if none. Sixteen
// bytes a turn (SSE2): a signed compare with 0x20 marks both the control
// bytes and those from 0x80 on, which are negative. The last bytes, fewer
// than sixteen, one at a time.
TEXT ·plainRun(SB), NOSPLIT, $0-40
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	MOVQ i+24(FP), AX
	MOVQ $0x2222222222222222, BX
	MOVQ BX, X0
	PUNPCKLQDQ X0, X0
	MOVQ $0x5c5c5c5c5c5c5c5c, BX
	MOVQ BX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x2020202020202020, BX
	MOVQ BX, X2
	PUNPCKLQDQ X2, X2

block:
	LEAQ 16(AX), CX
	CMPQ CX, DX
	JA tail
	MOVOU (SI)(AX*1), X3
	MOVO X3, X4
	MOVO X3, X5
	MOVO X2, X6
	PCMPEQB X0, X4
	PCMPEQB X1, X5
	PCMPGTB X3, X6
	POR X4, X5
	POR X5, X6
	PMOVMSKB X6, BX
	TESTL BX, BX
	JNZ found
	MOVQ CX, AX
	JMP block

found:
	BSFL BX, BX
	ADDQ BX, AX
	MOVQ AX, ret+32(FP)
	RET

tail:
	CMPQ AX, DX
	JAE done
	MOVBLZX (SI)(AX*1), BX
	CMPB BL, $0x22
	JEQ done
	CMPB BL, $0x5c
	JEQ done
	CMPB BL, $0x20
	JCS done
	CMPB BL, $0x80
	JCC done
	INCQ AX
	JMP tail

done:
	MOVQ AX, ret+32(FP)
	RET
