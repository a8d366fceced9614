package ledger

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"time"

	"github.com/tokenfare/tokenfare/internal/numtext"
)

// parseInt reads a base-10 integer from b without allocating. An optional
// sign is allowed, and so is a fraction made only of zeros ("12.0"), which
// spreadsheet and pandas exports write for integer columns.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	if len(b) <= 18 { // the common case: digits only, too few to overflow
		var n int64
		for _, c := range b {
			if c-'0' > 9 {
				return parseIntSlow(b)
			}
			n = n*10 + int64(c-'0')
		}
		return n, true
	}
	return parseIntSlow(b)
}

// parseIntSlow is parseInt for signs, fractions and long numbers.
func parseIntSlow(b []byte) (int64, bool) {
	neg := false
	switch b[0] {
	case '-':
		neg = true
		b = b[1:]
	case '+':
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	i := 0
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		if n > (1<<63-1-int64(c))/10 {
			return 0, false
		}
		n = n*10 + int64(c)
	}
	if i == 0 {
		return 0, false
	}
	if i < len(b) {
		if b[i] != '.' {
			return 0, false
		}
		for _, c := range b[i+1:] {
			if c != '0' {
				return 0, false
			}
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseAmount reads an exact decimal such as "0.000123", "-4" or
// "1.2345e-05" from b. Up to 18 significant digits it builds the amount
// from its digits without allocating; longer numbers go through
// numtext.Decimal, so more than numtext.MaxDigits digits or MaxChars
// characters are refused. It never goes through float64.
func parseAmount(b []byte) (Amount, bool) {
	if len(b) == 0 || len(b) > numtext.MaxChars {
		return Amount{}, false
	}
	i := 0
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i++
	}
	var mant int64
	var exp int64
	digits, sig := 0, 0
	dot := false
	for ; i < len(b); i++ {
		c := b[i]
		if c == '.' {
			if dot {
				return Amount{}, false
			}
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		digits++
		if mant == 0 && c == '0' {
			if dot {
				exp--
			}
			continue
		}
		sig++
		if sig > 18 {
			return slowAmount(b)
		}
		mant = mant*10 + int64(c-'0')
		if dot {
			exp--
		}
	}
	if digits == 0 {
		return Amount{}, false
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return Amount{}, false
		}
		e, ok := parseInt(b[i+1:])
		if !ok || e > maxExponent || e < -maxExponent || !allDigits(b[i+1:]) {
			return Amount{}, false
		}
		exp += e
	}
	if mant == 0 {
		return Amount{}, true
	}
	if exp < -maxExponent || exp > maxExponent { // as the slow path refuses
		return Amount{}, false
	}
	if neg {
		mant = -mant
	}
	return NewAmount(mant, int32(exp)), true
}

// allDigits reports whether b is an optionally signed run of digits.
func allDigits(b []byte) bool {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func slowAmount(b []byte) (Amount, bool) {
	d, err := numtext.Decimal(string(b)) // numtext bounds the exponent to ±maxExponent
	if err != nil {
		return Amount{}, false
	}
	return AmountOf(d), true
}

// maxExponent bounds the exponent of a decimal read from input: a spend of
// 1e99999999 is no real amount and would make every sum crawl. It is
// numtext's bound, the one every reader of numbers shares.
const maxExponent = numtext.MaxExponent

// dateCache remembers the last date, hour and minute parseTime converted:
// logs are mostly in time order, so consecutive rows share them.
type dateCache struct {
	key  [2]uint64 // the first 16 bytes, "2006-01-02 15:04"
	secs int64     // Unix seconds of that minute
	set  bool
}

// parseTime reads an instant from b: "2006-01-02 15:04:05[.fff]" without
// a zone is UTC; "T" may replace the space; a zone may follow as "Z",
// "+08", "+0800" or "+08:00" (a space before it is allowed). The result is
// UTC. Years before 1970 are refused. It does not allocate. dc may be nil.
func parseTime(b []byte, dc *dateCache) (time.Time, bool) {
	if len(b) < 19 || b[16] != ':' {
		return time.Time{}, false
	}
	k0, k1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	var minute int64
	if dc != nil && dc.set && dc.key == [2]uint64{k0, k1} {
		minute = dc.secs
	} else {
		var ok bool
		if minute, ok = parseMinute(b); !ok {
			return time.Time{}, false
		}
		if dc != nil {
			dc.key, dc.secs, dc.set = [2]uint64{k0, k1}, minute, true
		}
	}
	sec, ok := digitsN(b[17:19])
	if !ok || sec > 59 {
		return time.Time{}, false
	}
	rest := b[19:]
	var nsec int64
	if len(rest) >= 4 && rest[0] == '.' && rest[1]-'0' <= 9 && rest[2]-'0' <= 9 && rest[3]-'0' <= 9 &&
		(len(rest) == 4 || rest[4]-'0' > 9) {
		// Milliseconds, as most logs write them.
		nsec = int64(rest[1]-'0')*1e8 + int64(rest[2]-'0')*1e7 + int64(rest[3]-'0')*1e6
		rest = rest[4:]
	} else if len(rest) > 0 && rest[0] == '.' {
		i, scale := 1, int64(100000000)
		for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
			nsec += int64(rest[i]-'0') * scale
			scale /= 10
		}
		if i == 1 {
			return time.Time{}, false
		}
		rest = rest[i:]
	}
	offset, ok := parseZone(rest)
	if !ok {
		return time.Time{}, false
	}
	unix := minute + int64(sec) - offset
	if unix < 0 { // 1970-01-01 05:00+08:00 is still 1969 in UTC
		return time.Time{}, false
	}
	return time.Unix(unix, nsec).UTC(), true
}

// parseMinute returns the Unix seconds of the minute "2006-01-02 15:04"
// that starts b (the seconds are read by the caller).
func parseMinute(b []byte) (int64, bool) {
	if b[4] != '-' || b[7] != '-' || (b[10] != ' ' && b[10] != 'T' && b[10] != 't') || b[13] != ':' {
		return 0, false
	}
	year, ok1 := digitsN(b[0:4])
	month, ok2 := digitsN(b[5:7])
	day, ok3 := digitsN(b[8:10])
	hour, ok4 := digitsN(b[11:13])
	minute, ok5 := digitsN(b[14:16])
	// Years before 1970 are refused: the zero time means "unknown".
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || year < 1970 || month < 1 || month > 12 || day < 1 ||
		day > daysIn(year, month) || hour > 23 || minute > 59 {
		return 0, false
	}
	return civilDays(year, month, day)*86400 + int64(hour*3600+minute*60), true
}

// parseZone reads a trailing zone designator and returns its offset east of
// UTC in seconds. Empty means UTC.
func parseZone(b []byte) (int64, bool) {
	if len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	switch {
	case len(b) == 0:
		return 0, true
	case len(b) == 1 && (b[0] == 'Z' || b[0] == 'z'):
		return 0, true
	case len(b) == 3 && string(b) == "UTC":
		return 0, true
	case b[0] != '+' && b[0] != '-':
		return 0, false
	}
	sign := int64(1)
	if b[0] == '-' {
		sign = -1
	}
	b = b[1:]
	var hh, mm int
	var ok bool
	switch len(b) {
	case 2:
		hh, ok = digitsN(b)
	case 4:
		var ok2 bool
		hh, ok = digitsN(b[:2])
		mm, ok2 = digitsN(b[2:])
		ok = ok && ok2
	case 5:
		var ok2 bool
		hh, ok = digitsN(b[:2])
		mm, ok2 = digitsN(b[3:])
		ok = ok && ok2 && b[2] == ':'
	}
	if !ok || hh > 23 || mm > 59 {
		return 0, false
	}
	return sign * int64(hh*3600+mm*60), true
}

func digitsN(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// civilDays returns the days from 1970-01-01 to the given proleptic
// Gregorian date.
func civilDays(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// HashKey returns the SHA-256 hex digest of a raw API key, the same value
// LiteLLM stores in LiteLLM_SpendLogs.api_key. Readers call it on every raw
// key so that no raw key is kept.
func HashKey(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}
