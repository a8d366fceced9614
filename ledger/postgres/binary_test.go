package postgres

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tokenfare/tokenfare/internal/pgtest"
)

// TestBinaryAsText: each timestamp and integer the server sends in binary
// form is written out as the server writes it as text (DateStyle ISO,
// TimeZone UTC, as Source's connections set them): the two ends of time,
// years before 1 and past 9999, fractions, instants before the epoch,
// dates written afresh and dates kept from the row before.
func TestBinaryAsText(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	src, err := New(db.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, src.cfg.Copy())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, typ := range []string{"timestamp", "timestamptz", "timestamp(3)"} {
		checkBinary(t, conn, typ, `SELECT x::`+typ+`, x::`+typ+`::text FROM (VALUES ('infinity'), ('-infinity'), ('4713-11-24 00:00:00 BC'),
			('0044-03-15 12:00:00.5 BC'), ('0044-03-15 00:00:00 BC'), ('0001-01-01 00:00:00'), ('0001-12-31 23:59:59.999999 BC'), ('1999-12-31 23:59:59.999999'),
			('2000-01-01 00:00:00'), ('2000-01-01 00:00:00.000001'), ('1969-12-31 23:59:59.9'), ('2026-10-01 12:00:00.120'),
			('2026-10-01 23:59:59'), ('2024-02-29 07:08:09.0105'), ('2024-02-29 07:08:09'), ('9999-12-31 23:59:59'), ('10000-01-01 00:00:00'), ('294276-12-31 23:59:59.999999')) v(x)`, 18)
	}
	checkBinary(t, conn, "int2", `SELECT v, v::text FROM (SELECT unnest(ARRAY[0, 1, -1, 32767, -32768]::int2[]) v) s
		UNION ALL SELECT NULL, NULL`, 6)
	for _, typ := range []string{"int4", "int8"} {
		checkBinary(t, conn, typ, `SELECT v::`+typ+`, v::`+typ+`::text FROM unnest(ARRAY[0, 7, -7, 2147483647, -2147483648]) v`, 5)
	}
	checkBinary(t, conn, "int8 ends", `SELECT v, v::text FROM unnest(ARRAY[9223372036854775807, -9223372036854775808]::int8[]) v`, 2)
}

// checkBinary runs sql, whose want rows are a value (in binary form, as
// row mode asks) and its text, and checks that appendText writes the
// value as the text.
func checkBinary(t *testing.T, conn *pgx.Conn, what, sql string, want int) {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, binaryResults)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	bin := binaryColumns(fields)
	if len(bin) != 1 || bin[0].at != 0 {
		t.Fatalf("%s: binary columns %v, want the first alone", what, bin)
	}
	n := 0
	var dates dateCache // kept from row to row
	for rows.Next() {
		n++
		v := rows.RawValues()
		if v[0] == nil {
			if v[1] != nil {
				t.Errorf("%s: NULL in binary, %q as text", what, v[1])
			}
			continue
		}
		if got := appendText(nil, bin[0].oid, v[0], nil); string(got) != string(v[1]) {
			t.Errorf("%s: wrote %q, the server %q", what, got, v[1])
		}
		if got := appendText(nil, bin[0].oid, v[0], &dates); string(got) != string(v[1]) {
			t.Errorf("%s: wrote %q, the server %q", what, got, v[1])
		}
	}
	if err := rows.Err(); err != nil || n != want {
		t.Fatalf("%s: %d rows, %v", what, n, err)
	}
}

// TestRowQueryBinaryColumns: row mode's query has its three timestamps
// and three token counts sent in binary form, and nothing else.
func TestRowQueryBinaryColumns(t *testing.T) {
	db := pgtest.NewLiteLLM(t, pgtest.SchemaCurrent)
	db.LoadDump(t, sampleDump)
	r := openDB(t, db.URL, Options{})
	defer r.Close()
	st := r.(*Reader).stream // the sample is too small to read in halves
	if st == nil {
		t.Fatal("read in halves")
	}
	var names []string
	for _, c := range st.bin {
		names = append(names, rowColumns[c.at])
	}
	if got, want := len(names), 6; got != want || names[0] != "startTime" || names[5] != "total_tokens" {
		t.Errorf("binary columns %v, want the three timestamps and three counts", names)
	}
}

// TestCivil: civil's date of every day in the years PostgreSQL's
// timestamps hold (4713 BC to 294276), by steps, and of the days around
// each era's and century's turn, is Go's calendar's.
func TestCivil(t *testing.T) {
	const first, last = -2_451_545, 106_741_541 // 4714-11-24 BC to 294276-12-31, from 2000-01-01
	check := func(d int64) {
		y, m, day := civil(d)
		gy, gm, gd := time.Unix(pgEpoch+d*86400, 0).UTC().Date()
		if y != int64(gy) || m != int(gm) || day != gd {
			t.Fatalf("day %d: %d-%d-%d, want %d-%d-%d", d, y, m, day, gy, gm, gd)
		}
	}
	for d := int64(first); d <= last; d += 997 {
		check(d)
	}
	for _, year := range []int{-4713, -400, -101, -100, -1, 0, 1, 100, 1600, 1700, 1900, 2000, 2100, 2400, 294276} {
		mid := time.Date(year, 3, 1, 0, 0, 0, 0, time.UTC).Unix()/86400 - pgEpoch/86400
		for d := mid - 70; d <= mid+70; d++ {
			check(d)
		}
	}
}

// BenchmarkAppendTimestamp is what row mode pays a timestamp to write out
// what the server sends in binary form.
func BenchmarkAppendTimestamp(b *testing.B) {
	us := int64(845_000_000_123_000) // 2026-10-10 ...
	var buf []byte
	var dc dateCache
	for b.Loop() {
		buf = appendTimestamp(buf[:0], us, false, &dc)
		us += 1_234_567
	}
}

// TestAppendTimestampMatchesTimeFormat: between the years 1 and 9999,
// appendTimestamp writes what Go's time package formats, fraction without
// trailing zeros, for random instants, with its date cache and without.
func TestAppendTimestampMatchesTimeFormat(t *testing.T) {
	lo := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro() - pgEpoch*1e6
	hi := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro() - pgEpoch*1e6
	rng := rand.New(rand.NewPCG(1, 2))
	var dc dateCache
	for i := range 200_000 {
		us := lo + rng.Int64N(hi-lo+1)
		if i%2 == 1 { // the same day as the last, often
			us = us/86_400_000_000*86_400_000_000 + rng.Int64N(86_400_000_000)
		}
		want := time.UnixMicro(pgEpoch*1e6 + us).UTC().Format("2006-01-02 15:04:05.999999")
		if got := string(appendTimestamp(nil, us, false, nil)); got != want {
			t.Fatalf("%d: %q, want %q", us, got, want)
		}
		if got := string(appendTimestamp(nil, us, true, &dc)); got != want+"+00" {
			t.Fatalf("%d (kept dates): %q, want %q", us, got, want+"+00")
		}
	}
}
