//go:build !amd64

package ledger

// fastCommaMasks: without a vectorised commaMasks, the CSV workers split
// lines a word at a time instead (splitInto).
const fastCommaMasks = false

// commaMasks sets, for each i < len(dst), bit j of dst[i] when
// src[64*i+j] is a comma. src must hold at least 64*len(dst) bytes.
func commaMasks(dst []uint64, src []byte) {
	_ = src[:64*len(dst)]
	for i := range dst {
		var m uint64
		for j, c := range src[64*i : 64*i+64] {
			if c == ',' {
				m |= 1 << j
			}
		}
		dst[i] = m
	}
}

// commaQuoteMasks is commaMasks into commas, and the same for double
// quotes into quotes, as long as commas.
func commaQuoteMasks(commas, quotes []uint64, src []byte) {
	_ = src[:64*len(commas)]
	_ = quotes[:len(commas)]
	for i := range commas {
		var c, q uint64
		for j, b := range src[64*i : 64*i+64] {
			switch b {
			case ',':
				c |= 1 << j
			case '"':
				q |= 1 << j
			}
		}
		commas[i], quotes[i] = c, q
	}
}

// commaQuoteLineMasks is commaQuoteMasks, and the same for newlines
// into lines, as long as commas; nul tells whether the bytes marked hold
// a 0.
func commaQuoteLineMasks(commas, quotes, lines []uint64, src []byte) (nul bool) {
	commaQuoteMasks(commas, quotes, src)
	_ = lines[:len(commas)]
	for i := range commas {
		var m uint64
		for j, b := range src[64*i : 64*i+64] {
			if b == '\n' {
				m |= 1 << j
			}
			nul = nul || b == 0
		}
		lines[i] = m
	}
	return nul
}
