package flextime

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var base = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC) // 1714979289

func TestParseAcceptedShapes(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2024-05-06T07:08:09Z", base},
		{"2024-05-06T17:08:09+10:00", base},
		{"2024-05-06T02:08:09-05:00", base},
		{"2024-05-06T07:08:09.123Z", base.Add(123 * time.Millisecond)},
		{"2024-05-06T07:08:09.123456789Z", base.Add(123456789)},
		{"2024-05-06T07:08:09,5Z", base.Add(500 * time.Millisecond)},
		{"2024-05-06T07:08:09+0000", base},
		{"2024-05-06T09:08:09.5+0200", base.Add(500 * time.Millisecond)},
		{"2024-05-06T07:08:09", base},
		{"2024-05-06T07:08:09.25", base.Add(250 * time.Millisecond)},
		{"2024-05-06 07:08:09", base},
		{"2024-05-06 07:08:09.000001", base.Add(time.Microsecond)},
		{"2024-05-06 09:08:09+02:00", base},
		{"2024-05-06 07:08:09Z", base},
		{"2024-05-06", time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)},
		{"Mon, 06 May 2024 09:08:09 +0200", base},
		{"Mon, 06 May 2024 07:08:09 GMT", base},
		{"  2024-05-06T07:08:09Z\n", base},
		{"9999-12-31T23:59:59Z", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
		{"0001-01-01T00:00:00Z", time.Time{}},
		// Epoch numbers as strings: seconds up to 1e11, milliseconds above.
		{"1714979289", base},
		{"1714979289.5", base.Add(500 * time.Millisecond)},
		{"1714979289123", base.Add(123 * time.Millisecond)},
		{"0", time.Unix(0, 0)},
		{"-1", time.Unix(-1, 0)},
		{"100000000000", time.Unix(1e11, 0)},           // 1e11 is still seconds (year 5138)
		{"100000000001", time.UnixMilli(100000000001)}, // just above: milliseconds (1973)
		// 9999-12-31T23:59:59Z in epoch seconds is above 1e11, so it reads
		// as milliseconds (a day in 1978): the cut-off is pinned here.
		{"253402300799", time.UnixMilli(253402300799)},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !got.Equal(tt.want) {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseNoZoneIsUTC(t *testing.T) {
	for _, in := range []string{"2024-05-06T07:08:09", "2024-05-06 07:08:09", "2024-05-06", "1714979289"} {
		got, err := Parse(in)
		if err != nil || got.Location() != time.UTC {
			t.Errorf("Parse(%q) = %v (%v), %v; want UTC", in, got, got.Location(), err)
		}
	}
}

func TestParseRejectedShapes(t *testing.T) {
	for _, in := range []string{
		"", " ", "yesterday", "now",
		"2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z", "2024-05-06T25:00:00Z", "2024-05-06T07:60:00Z",
		"2024-05-06T07:08", "2024-05-06T07:08:09+25:00", "06/05/2024", "05/06/2024 07:08:09",
		"2024-5-6", "20240506T070809Z", "2024-05-06T07:08:09Z garbage",
		"NaN", "Inf", "-Inf", "1e400", "1e19", "-1e19", "0x", "12abc",
	} {
		if got, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, got)
		} else if !strings.Contains(err.Error(), "unrecognised date-time") {
			t.Errorf("Parse(%q) error = %v", in, err)
		}
	}
}

func TestTimeUnmarshalJSON(t *testing.T) {
	tests := []struct {
		raw     string
		want    time.Time
		wantErr bool
	}{
		{`"2024-05-06T07:08:09Z"`, base, false},
		{`"2024-05-06T17:08:09+10:00"`, base, false},
		{`"2024-05-06 07:08:09"`, base, false},
		{`"9999-12-31T23:59:59Z"`, time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), false},
		{`"2024-05-06T07:08:09\u002e5Z"`, base.Add(500 * time.Millisecond), false}, // an escape is decoded first
		{`"1714979289"`, base, false},
		{`1714979289`, base, false},
		{`1714979289.5`, base.Add(500 * time.Millisecond), false},
		{`1714979289123`, base.Add(123 * time.Millisecond), false},
		{`1.714979289e9`, base, false},
		{` 1714979289 `, base, false},
		{`null`, time.Time{}, false},
		{`""`, time.Time{}, false},
		{`"yesterday"`, time.Time{}, true},
		{`true`, time.Time{}, true},
		{`{}`, time.Time{}, true},
		{`1e400`, time.Time{}, true},
		{`1e19`, time.Time{}, true},
	}
	for _, tt := range tests {
		var v Time
		err := v.UnmarshalJSON([]byte(tt.raw))
		if (err != nil) != tt.wantErr {
			t.Errorf("UnmarshalJSON(%s) error = %v, want error %v", tt.raw, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !v.Equal(tt.want) {
			t.Errorf("UnmarshalJSON(%s) = %v, want %v", tt.raw, v.Time, tt.want)
		}
	}
}

// TestTimeInStruct: through encoding/json, as the SDK's types use it,
// including a string with an escape and one encoding/json must refuse.
func TestTimeInStruct(t *testing.T) {
	var v struct {
		A, B, C Time
	}
	if err := json.Unmarshal([]byte(`{"A":"2024-05-06T07:08:09Z","B":1714979289123,"C":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.A.Equal(base) || !v.B.Equal(base.Add(123*time.Millisecond)) || !v.C.IsZero() {
		t.Errorf("decoded %v, %v, %v", v.A, v.B, v.C)
	}
	if err := json.Unmarshal([]byte(`{"A":"2024-05-06T07:08:09Z\u0000"}`), &v); err == nil {
		t.Error("a date-time with a NUL was accepted")
	}
}

// FuzzUnmarshalJSONMatchesParse: a JSON string decodes to what Parse makes
// of its text (same instant, same zone), whichever path UnmarshalJSON takes.
func FuzzUnmarshalJSONMatchesParse(f *testing.F) {
	for _, s := range []string{
		"2024-05-06T07:08:09Z", "2024-05-06T07:08:09.123456789Z", "2024-05-06T07:08:09.1234567891Z",
		"2024-05-06T17:08:09+10:00", "2024-05-06T07:08:09+24:00", "2024-05-06T07:08:09-00:60", "2024-02-30T07:08:09Z",
		"2024-05-06T24:00:00Z", "2024-05-06T07:08:60Z", "2024-05-06T07:08:09,5Z", "2024-05-06T07:08:09.Z",
		"2024-05-06 07:08:09", "2024-05-06", "1714979289", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999+14:00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Skip()
		}
		var got Time
		gotErr := got.UnmarshalJSON(raw)
		var text string
		_ = json.Unmarshal(raw, &text) // what the JSON string says (invalid UTF-8 replaced)
		want, wantErr := time.Time{}, error(nil)
		if text != "" {
			want, wantErr = Parse(text)
		}
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("UnmarshalJSON(%s) error = %v, Parse error = %v", raw, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		gn, go_ := got.Zone()
		wn, wo := want.Zone()
		if !got.Equal(want) || gn != wn || go_ != wo {
			t.Fatalf("UnmarshalJSON(%s) = %v, Parse = %v", raw, got.Time, want)
		}
	})
}
