package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// byteToChar is GPT-2's bytes_to_unicode table: every byte maps to a
// printable character; charToByte is its inverse.
var (
	byteToChar [256]string
	charToByte = map[rune]byte{}
)

func init() {
	n := 0
	for b := range 256 {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		r := rune(b)
		if !printable {
			r = rune(256 + n)
			n++
		}
		byteToChar[b] = string(r)
		charToByte[r] = byte(b)
	}
}

// rawToByteLevel maps every byte of raw to its byte-level character.
func rawToByteLevel(raw string) string {
	var sb strings.Builder
	sb.Grow(len(raw) * 2)
	for i := 0; i < len(raw); i++ {
		sb.WriteString(byteToChar[raw[i]])
	}
	return sb.String()
}

// byteLevelToRaw maps byte-level characters back to bytes; ok is false when
// s holds a character outside the table.
func byteLevelToRaw(s string) (string, bool) {
	buf := make([]byte, 0, len(s))
	for _, r := range s {
		b, ok := charToByte[r]
		if !ok {
			return "", false
		}
		buf = append(buf, b)
	}
	return string(buf), true
}

// lossyUTF8 converts bytes to a string like Rust's String::from_utf8_lossy:
// each maximal invalid subsequence becomes one U+FFFD.
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r != utf8.RuneError || n > 1 {
			sb.Write(b[:n])
			b = b[n:]
			continue
		}
		sb.WriteRune(utf8.RuneError)
		b = b[maximalSubpart(b):]
	}
	return sb.String()
}

// maximalSubpart returns the length (≥ 1) of the longest prefix of b that
// starts a valid UTF-8 sequence but is not one.
func maximalSubpart(b []byte) int {
	lo, hi, need := byte(0x80), byte(0xBF), 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		lo, need = 0xA0, 2
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		hi, need = 0x9F, 2
	case c == 0xF0:
		lo, need = 0x90, 3
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		hi, need = 0x8F, 3
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(b); i++ {
		if b[i] < lo || b[i] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return i
}
