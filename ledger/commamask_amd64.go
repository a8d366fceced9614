package ledger

// fastCommaMasks: commaMasks is vectorised here, quicker than the word
// at a time split, so the CSV workers mark a chunk's commas with it.
const fastCommaMasks = true

// commaMasks sets, for each i < len(dst), bit j of dst[i] when
// src[64*i+j] is a comma. src must hold at least 64*len(dst) bytes.
//
//go:noescape
func commaMasks(dst []uint64, src []byte)

// commaQuoteMasks is commaMasks into commas, and the same for double
// quotes into quotes, as long as commas.
//
//go:noescape
func commaQuoteMasks(commas, quotes []uint64, src []byte)

// commaQuoteLineMasks is commaQuoteMasks, and the same for newlines
// into lines, as long as commas; nul tells whether the bytes marked hold
// a 0.
//
//go:noescape
func commaQuoteLineMasks(commas, quotes, lines []uint64, src []byte) (nul bool)
