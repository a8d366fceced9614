package postgres

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// binaryResults asks the server for the row queries' timestamps and
// integers in its binary form: writing them out as text (timestamp_out,
// int4out) was about a tenth of the server's CPU for row mode. appendText
// writes them here as the server would have, for the mapper, which reads
// text. Every other column, whatever its type, comes as text.
var binaryResults = pgx.QueryResultFormatsByOID{
	pgtype.TimestampOID:   pgx.BinaryFormatCode,
	pgtype.TimestamptzOID: pgx.BinaryFormatCode,
	pgtype.Int2OID:        pgx.BinaryFormatCode,
	pgtype.Int4OID:        pgx.BinaryFormatCode,
	pgtype.Int8OID:        pgx.BinaryFormatCode,
}

// binaryColumn is a result column that comes in binary form.
type binaryColumn struct {
	at  int    // its place in the row
	oid uint32 // its type
}

// binaryColumns lists the columns of fields that come in binary form.
func binaryColumns(fields []pgconn.FieldDescription) []binaryColumn {
	var out []binaryColumn
	for i, f := range fields {
		if f.Format == pgx.BinaryFormatCode {
			out = append(out, binaryColumn{i, f.DataTypeOID})
		}
	}
	return out
}

// pgEpoch is PostgreSQL's epoch for timestamps, in Unix seconds
// (2000-01-01 00:00:00 UTC).
const pgEpoch = 946684800

// appendText appends to dst the text PostgreSQL writes (DateStyle ISO,
// TimeZone UTC) for v, a value of type oid in binary form; a value of a
// size the type never has is written as such, which the mapper refuses.
func appendText(dst []byte, oid uint32, v []byte, dc *dateCache) []byte {
	switch {
	case oid == pgtype.Int2OID && len(v) == 2:
		return strconv.AppendInt(dst, int64(int16(binary.BigEndian.Uint16(v))), 10)
	case oid == pgtype.Int4OID && len(v) == 4:
		return strconv.AppendInt(dst, int64(int32(binary.BigEndian.Uint32(v))), 10)
	case oid == pgtype.Int8OID && len(v) == 8:
		return strconv.AppendInt(dst, int64(binary.BigEndian.Uint64(v)), 10)
	case (oid == pgtype.TimestampOID || oid == pgtype.TimestamptzOID) && len(v) == 8:
		return appendTimestamp(dst, int64(binary.BigEndian.Uint64(v)), oid == pgtype.TimestamptzOID, dc)
	}
	return append(dst, "(a binary value of "+strconv.Itoa(len(v))+" bytes)"...)
}

// appendTimestamp writes us, microseconds from pgEpoch, as timestamp_out
// (zone false) or timestamptz_out in UTC (zone true) writes them:
// "2026-10-01 12:00:00.12", "+00" after the time for a zone, " BC" last
// for a year before 1, a year of four digits or more, "infinity" and
// "-infinity" for the two ends. dc, when not nil, keeps the last date
// written: a row's timestamps, and a run of rows, mostly share one.
func appendTimestamp(dst []byte, us int64, zone bool, dc *dateCache) []byte {
	switch us {
	case math.MaxInt64:
		return append(dst, "infinity"...)
	case math.MinInt64:
		return append(dst, "-infinity"...)
	}
	secs, frac := us/1e6, us%1e6
	if frac < 0 {
		secs, frac = secs-1, frac+1e6
	}
	days, sod := secs/86400, secs%86400
	if sod < 0 {
		days, sod = days-1, sod+86400
	}
	var bc bool
	if dc != nil && len(dc.text) > 0 && dc.days == days {
		dst, bc = append(dst, dc.text...), dc.bc
	} else {
		from := len(dst)
		dst, bc = appendDate(dst, days)
		if dc != nil {
			*dc = dateCache{days: days, text: append(dc.text[:0], dst[from:]...), bc: bc}
		}
	}
	dst = appendClock(append(dst, ' '), sod, frac)
	if zone {
		dst = append(dst, "+00"...)
	}
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// dateCache is the last date appendTimestamp wrote: its day and text
// (empty until one is written).
type dateCache struct {
	days int64
	text []byte
	bc   bool
}

// civil returns the proleptic Gregorian date of the day days after
// 2000-01-01 (year 0 is 1 BC), by the days-from-civil algorithm's
// inverse: eras of 400 years counted from 0000-03-01.
func civil(days int64) (year int64, month, day int) {
	z := days + 730425 // days from 0000-03-01 to 2000-01-01
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11], from March
	day = int(doy - (153*mp+2)/5 + 1)
	month = int(mp + 3)
	if month > 12 {
		month -= 12
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

// appendDate writes the day days after 2000-01-01 as YYYY-MM-DD (a year
// before 1 as its number before Christ, which bc reports).
func appendDate(dst []byte, days int64) (_ []byte, bc bool) {
	year, month, day := civil(days)
	if bc = year <= 0; bc {
		year = 1 - year
	}
	if year <= 9999 {
		y := int(year)
		dst = append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	} else {
		dst = strconv.AppendInt(dst, year, 10)
	}
	return append(dst, '-', byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10)), bc
}

// appendClock writes sod seconds of a day and frac microseconds as
// HH:MM:SS and, unless frac is 0, the fraction without trailing zeros.
func appendClock(dst []byte, sod, frac int64) []byte {
	h, m, sec := sod/3600, sod/60%60, sod%60
	dst = append(dst, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':', byte('0'+sec/10), byte('0'+sec%10))
	if frac == 0 {
		return dst
	}
	var digits [7]byte
	digits[0] = '.'
	for i, f := 6, frac; i > 0; i, f = i-1, f/10 {
		digits[i] = byte('0' + f%10)
	}
	n := 7
	for digits[n-1] == '0' {
		n--
	}
	return append(dst, digits[:n]...)
}
