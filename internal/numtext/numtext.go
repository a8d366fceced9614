// Package numtext reads exact decimal numbers from untrusted text within
// a bound, so that no number costs more than a few microseconds to read.
//
// Reading a decimal is quadratic in its digits (a 4 MB spend field took
// 36 s of CPU), and no price, spend or token count needs more than a few
// dozen digits. Every reader of input text — call logs, provider exports,
// the PostgreSQL mapper, tariff and gateway config files — goes through
// Decimal, or checks MaxChars before its own fast path.
//
// # Invariants
//
//   - A number read has at most MaxChars characters of text and at most
//     MaxDigits significant digits; anything longer is refused, never
//     rounded.
//   - A number read has an exponent from -MaxExponent to MaxExponent (as
//     shopspring/decimal keeps it: 1.5e-7 is 15 × 10^-8); anything beyond
//     is refused with ErrOutOfRange, zeros too: 1e999999999 is eleven
//     characters, and one sum with it would allocate gigabytes.
//   - The length is checked before any digit is converted.
package numtext

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"
)

const (
	// MaxChars is the longest text of a number read, sign, point and
	// exponent included.
	MaxChars = 128
	// MaxDigits is the most significant digits of a number read (a
	// float64 written as text has at most 17).
	MaxDigits = 40
	// MaxExponent bounds the exponent of a number read, either way: no
	// price, spend, budget or count is below 10^-64 or above 10^104.
	MaxExponent = 64
)

// ErrOutOfRange is why a number whose exponent lies beyond ±MaxExponent
// is refused.
var ErrOutOfRange = fmt.Errorf("exponents run from -%d to %d", MaxExponent, MaxExponent)

// ErrTooLong is why a number beyond MaxChars or MaxDigits is refused.
var ErrTooLong = fmt.Errorf("a number has at most %d characters and %d significant digits", MaxChars, MaxDigits)

// ErrNotNumber is why text that is not a decimal number is refused.
var ErrNotNumber = errors.New("not a decimal number")

// Decimal reads s as an exact decimal ("0.00042", "-4", "1.2e-5"),
// refusing it with ErrTooLong beyond the bounds of its text, ErrOutOfRange
// beyond those of its exponent and ErrNotNumber when it is no number.
func Decimal(s string) (decimal.Decimal, error) {
	if len(s) > MaxChars {
		return decimal.Decimal{}, ErrTooLong
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, ErrNotNumber
	}
	if d.NumDigits() > MaxDigits {
		return decimal.Decimal{}, ErrTooLong
	}
	if e := d.Exponent(); e < -MaxExponent || e > MaxExponent {
		return decimal.Decimal{}, ErrOutOfRange
	}
	return d, nil
}
