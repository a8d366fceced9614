#include "textflag.h"

// func commaMasks(dst []uint64, src []byte)
//
// For each i < len(dst), dst[i] gets bit j set when src[64*i+j] is a
// comma; src holds at least 64*len(dst) bytes. SSE2 only, which every
// amd64 processor has: four 16-byte compares a block.
TEXT ·commaMasks(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	MOVQ $0x2c2c2c2c2c2c2c2c, AX
	MOVQ AX, X0
	PUNPCKLQDQ X0, X0
	TESTQ CX, CX
	JZ done

loop:
	MOVOU 0(SI), X1
	MOVOU 16(SI), X2
	MOVOU 32(SI), X3
	MOVOU 48(SI), X4
	PCMPEQB X0, X1
	PCMPEQB X0, X2
	PCMPEQB X0, X3
	PCMPEQB X0, X4
	PMOVMSKB X1, AX
	PMOVMSKB X2, BX
	PMOVMSKB X3, DX
	PMOVMSKB X4, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 0(DI)
	ADDQ $64, SI
	ADDQ $8, DI
	DECQ CX
	JNZ loop

done:
	RET

// func commaQuoteMasks(commas, quotes []uint64, src []byte)
//
// commaMasks, and the same for double quotes into quotes (as long as
// commas), from one load of each block.
TEXT ·commaQuoteMasks(SB), NOSPLIT, $0-72
	MOVQ commas_base+0(FP), DI
	MOVQ commas_len+8(FP), CX
	MOVQ quotes_base+24(FP), R9
	MOVQ src_base+48(FP), SI
	MOVQ $0x2c2c2c2c2c2c2c2c, AX
	MOVQ AX, X0
	PUNPCKLQDQ X0, X0
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X5
	PUNPCKLQDQ X5, X5
	TESTQ CX, CX
	JZ qdone

qloop:
	MOVOU 0(SI), X1
	MOVOU 16(SI), X2
	MOVOU 32(SI), X3
	MOVOU 48(SI), X4
	MOVOU X1, X6
	MOVOU X2, X7
	MOVOU X3, X8
	MOVOU X4, X9
	PCMPEQB X0, X1
	PCMPEQB X0, X2
	PCMPEQB X0, X3
	PCMPEQB X0, X4
	PCMPEQB X5, X6
	PCMPEQB X5, X7
	PCMPEQB X5, X8
	PCMPEQB X5, X9
	PMOVMSKB X1, AX
	PMOVMSKB X2, BX
	PMOVMSKB X3, DX
	PMOVMSKB X4, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 0(DI)
	PMOVMSKB X6, AX
	PMOVMSKB X7, BX
	PMOVMSKB X8, DX
	PMOVMSKB X9, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 0(R9)
	ADDQ $64, SI
	ADDQ $8, DI
	ADDQ $8, R9
	DECQ CX
	JNZ qloop

qdone:
	RET

// func commaQuoteLineMasks(commas, quotes, lines []uint64, src []byte) (nul bool)
//
// commaQuoteMasks, and the same for newlines into lines (as long as
// commas), from one load of each block; nul tells whether a byte of the
// blocks is 0 (the least byte of all, kept in X15).
TEXT ·commaQuoteLineMasks(SB), NOSPLIT, $0-97
	MOVQ commas_base+0(FP), DI
	MOVQ commas_len+8(FP), CX
	MOVQ quotes_base+24(FP), R9
	MOVQ lines_base+48(FP), R10
	MOVQ src_base+72(FP), SI
	MOVQ $0x2c2c2c2c2c2c2c2c, AX
	MOVQ AX, X0
	PUNPCKLQDQ X0, X0
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X5
	PUNPCKLQDQ X5, X5
	MOVQ $0x0a0a0a0a0a0a0a0a, AX
	MOVQ AX, X10
	PUNPCKLQDQ X10, X10
	PCMPEQB X15, X15
	TESTQ CX, CX
	JZ ldone

lloop:
	MOVOU 0(SI), X1
	MOVOU 16(SI), X2
	MOVOU 32(SI), X3
	MOVOU 48(SI), X4
	PMINUB X1, X15
	PMINUB X2, X15
	PMINUB X3, X15
	PMINUB X4, X15
	MOVOU X1, X6
	MOVOU X2, X7
	MOVOU X3, X8
	MOVOU X4, X9
	MOVOU X1, X11
	MOVOU X2, X12
	MOVOU X3, X13
	MOVOU X4, X14
	PCMPEQB X0, X1
	PCMPEQB X0, X2
	PCMPEQB X0, X3
	PCMPEQB X0, X4
	PCMPEQB X5, X6
	PCMPEQB X5, X7
	PCMPEQB X5, X8
	PCMPEQB X5, X9
	PCMPEQB X10, X11
	PCMPEQB X10, X12
	PCMPEQB X10, X13
	PCMPEQB X10, X14
	PMOVMSKB X1, AX
	PMOVMSKB X2, BX
	PMOVMSKB X3, DX
	PMOVMSKB X4, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 0(DI)
	PMOVMSKB X6, AX
	PMOVMSKB X7, BX
	PMOVMSKB X8, DX
	PMOVMSKB X9, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 0(R9)
	PMOVMSKB X11, AX
	PMOVMSKB X12, BX
	PMOVMSKB X13, DX
	PMOVMSKB X14, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 0(R10)
	ADDQ $64, SI
	ADDQ $8, DI
	ADDQ $8, R9
	ADDQ $8, R10
	DECQ CX
	JNZ lloop

ldone:
	PXOR X14, X14
	PCMPEQB X14, X15
	PMOVMSKB X15, AX
	TESTQ AX, AX
	SETNE nul+96(FP)
	RET
