package tdx

import (
	"fmt"
	"strings"
	"testing"
)

func TestEachLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // beyond the 64 KB bufio buffer
	tests := []struct {
		in   string
		want string
	}{
		{"", ""},
		{"a", "1@0:a"},
		{"a\n", "1@0:a"},
		{"a\r\nbb\r\n", "1@0:a 2@3:bb"},
		{"\na\n\nb", "1@0: 2@1:a 3@3: 4@4:b"},
		{"a\r\r\nb", "1@0:a\r 2@4:b"}, // only one CR belongs to the line end
		{long + "\r\nz", fmt.Sprintf("1@0:%s 2@%d:z", long, len(long)+2)},
	}
	for _, tc := range tests {
		var got []string
		err := eachLine(strings.NewReader(tc.in), func(no int, off int64, line []byte) bool {
			got = append(got, fmt.Sprintf("%d@%d:%s", no, off, line))
			return true
		})
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%.20q: %.80q %v, want %.80q", tc.in, strings.Join(got, " "), err, tc.want)
		}
	}
	err := eachLine(strings.NewReader(strings.Repeat("y", maxLineLen+100)), func(int, int64, []byte) bool { return true })
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("an endless line: %v", err)
	}
	n := 0
	eachLine(strings.NewReader("a\nb\nc\n"), func(int, int64, []byte) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("stopping: %d calls", n)
	}
}

func TestGBKText(t *testing.T) {
	g := newGBK()
	for _, tc := range []struct{ in, want string }{
		{"ascii", "ascii"},
		{"\xc6\xbd\xb0\xb2\xd2\xf8\xd0\xd0", "平安银行"},
		{"\xa3\xc1", "Ａ"},
		{"\xff\xfe", "\uFFFD\uFFFD"}, // invalid: replaced, not an error
	} {
		if got := g.string([]byte(tc.in)); got != tc.want && !(strings.ContainsRune(got, '\uFFFD') && strings.ContainsRune(tc.want, '\uFFFD')) {
			t.Errorf("%q → %q, want %q", tc.in, got, tc.want)
		}
	}
}
