package report

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/width"

	"github.com/goeval/goeval/internal/py"
)

// The markdown table lm-eval prints, as pytablewriter 1.2.1's
// MarkdownTableWriter (with dataproperty 1.1 and typepy 1.3) renders it:
// every cell is typed (integer, real number, infinity, NaN, bool, empty or
// string: "1.0000" is an integer, "0.2500" a real number with 2 decimals),
// a column takes one type from its cells', numbers are reformatted to the
// column's most decimals, number columns are right-aligned, headers
// centred, widths in East Asian display cells. Only what make_table's rows
// can hold is modelled: str, int, float, bool and None values.

// kind is a typepy Typecode; the bits let a column collect its cells'.
type kind uint16

const (
	kInt kind = 1 << iota
	kReal
	kInf
	kNaN
	kBool
	kNull // typepy's NULL_STRING: None, or a string of whitespace
	kString
)

// cell is one typed value: its kind and data (the decimal for numbers, the
// text for strings, empty and bools).
type cell struct {
	kind   kind
	text   string     // kString, kNull: the value; kBool: "True" or "False"
	num    py.Decimal // kInt, kReal
	places int        // kReal: dataproperty's decimal places (0 for kInt)
}

// newCell types a value as dataproperty does under pytablewriter's strict
// levels (integers and reals at level 1: "1.0" is an integer, "1e300" a
// string).
func newCell(v any) cell {
	switch x := v.(type) {
	case nil:
		return cell{kind: kNull}
	case bool:
		return cell{kind: kBool, text: py.Str(x)}
	case int:
		d, _ := py.ParseDecimal(py.Str(int64(x)))
		return cell{kind: kInt, num: d}
	case int64:
		d, _ := py.ParseDecimal(py.Str(x))
		return cell{kind: kInt, num: d}
	case float64:
		return floatCell(x)
	case json.Number:
		if py.IsIntLiteral(x) {
			d, _ := py.ParseDecimal(string(x))
			return cell{kind: kInt, num: d}
		}
		f, _ := py.ParseFloat(py.Str(x))
		return floatCell(f)
	case string:
		return stringCell(x)
	}
	return cell{kind: kString, text: py.Str(v)}
}

// floatCell types a Python float: integral ones are integers, the value of
// a real is Decimal(str(f)).
func floatCell(f float64) cell {
	switch {
	case math.IsNaN(f):
		return cell{kind: kNaN, num: py.Decimal{NaN: true}}
	case math.IsInf(f, 0):
		return cell{kind: kInf, num: py.Decimal{Inf: true}}
	}
	d, _ := py.ParseDecimal(py.Repr(f))
	if d.IsInteger() {
		i, _ := py.ParseDecimal(d.Trunc())
		return cell{kind: kInt, num: i}
	}
	return cell{kind: kReal, num: d, places: decimalPlaces(d)}
}

// typepy's patterns; Python's \d matches every Unicode decimal digit.
var (
	thousandSep = regexp.MustCompile(`\p{Nd}{1,3}(,\p{Nd}{1,3})+`)
	sciInt      = regexp.MustCompile(`^-?\p{Nd}+(?:\.\p{Nd}*)?[eE][+\-]?\p{Nd}{3,}$`)
	sciReal     = regexp.MustCompile(`^-?\p{Nd}+(?:\.\p{Nd}*)?[eE][+\-]?\p{Nd}{0,2}$`)
)

// stringCell tries typepy's types in dataproperty's order: integer,
// infinity, NaN, real number, bool, empty, string.
func stringCell(s string) cell {
	d, isDec := py.ParseDecimal(s)
	real := isDec && d.Finite() && !isIntegral(d.Float()) &&
		!(strings.ContainsAny(s, "eE") && !sciReal.MatchString(s))
	if !real && !(isDec && d.Inf) && !sciInt.MatchString(s) {
		t := s
		if thousandSep.MatchString(t) {
			t = strings.ReplaceAll(t, ",", "")
		}
		if i, ok := py.ParseDecimal(t); ok && i.Finite() {
			n, _ := py.ParseDecimal(i.Trunc())
			return cell{kind: kInt, num: n}
		}
	}
	switch {
	case isDec && d.Inf:
		return cell{kind: kInf, num: d}
	case isDec && d.NaN:
		return cell{kind: kNaN, num: d}
	case real:
		return cell{kind: kReal, num: d, places: decimalPlaces(d)}
	}
	switch strings.ToLower(s) {
	case "true":
		return cell{kind: kBool, text: "True"}
	case "false":
		return cell{kind: kBool, text: "False"}
	}
	if py.Strip(s) == "" {
		return cell{kind: kNull, text: s}
	}
	return cell{kind: kString, text: s}
}

// isIntegral is Python's float.is_integer().
func isIntegral(f float64) bool { return !math.IsInf(f, 0) && f == math.Trunc(f) }

var expPlaces = regexp.MustCompile(`[\d.]+[eE]-\d+`)

// decimalPlaces is dataproperty's DigitCalculator: the digits after the
// point of str(abs(float(d))), or the exponent of "1e-05".
func decimalPlaces(d py.Decimal) int {
	text := py.Repr(math.Abs(d.Float()))
	n := 0
	if i := strings.IndexByte(text, '.'); i >= 0 {
		n = len(text) - i - 1 // "1.5e-05" counts "5e-05", as dataproperty does
	} else if expPlaces.MatchString(text) {
		n, _ = strconv.Atoi(text[strings.Index(strings.ToLower(text), "e-")+2:])
	}
	return min(n, 99)
}

// column is a column's type, decimals and width.
type column struct {
	kind   kind // the type the column takes
	places int  // most decimals of its number cells; -1: none
	width  int
}

// columnKind is dataproperty's ColumnDataProperty typecode from the cells'
// kinds: numbers (with empties) mixed or any float kind with an empty are
// real; bools mixed with others are strings; else the first present of
// string, real, integer, bool, infinity, NaN, empty.
func columnKind(bits kind) kind {
	floats := kReal | kInf | kNaN
	numbers := floats | kInt
	onlyNumeric := bits&^(numbers|kNull) == 0
	if onlyNumeric && (popcount(bits&(floats|kNull)) >= 2 || popcount(bits&numbers) >= 2) {
		return kReal
	}
	if bits&kBool != 0 && bits&^kBool != 0 {
		return kString
	}
	for _, k := range []kind{kString, kReal, kInt, kBool, kInf, kNaN, kNull} {
		if bits&k != 0 {
			return k
		}
	}
	return kNull
}

func popcount(k kind) int {
	n := 0
	for ; k != 0; k &= k - 1 {
		n++
	}
	return n
}

// format is ColumnDataProperty.dp_to_str: a cell as its column prints it.
func (c column) format(x cell) string {
	k := c.kind
	if k == kString || k == kBool || k == x.kind {
		k = x.kind // formatted as its own type
	} else if k == kReal && x.kind == kNull || k == kInt && x.kind != kInt {
		return x.text // no conversion to the column's type
	}
	switch k {
	case kInt:
		return x.num.Trunc()
	case kReal, kInf, kNaN:
		if x.kind == kNull {
			return x.text
		}
		return x.num.Fixed(max(c.places, 0))
	}
	return x.text
}

// cellWidth is dataproperty's calc_ascii_char_width: East Asian wide and
// full-width characters count two cells, the rest one.
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// rightAligned reports whether a cell is right-aligned: a number column's
// cells, and numbers in a string column.
func (c column) rightAligned(x cell) bool {
	if c.kind == kString {
		return x.kind == kInt || x.kind == kReal
	}
	return c.kind == kInt || c.kind == kReal
}

// markdownTable renders headers and rows as MarkdownTableWriter.dumps().
func markdownTable(headers []string, rows [][]any) string {
	cells := make([][]cell, len(rows))
	for i, row := range rows {
		cells[i] = make([]cell, len(row))
	}
	for j := range headers {
		typeColumn(j, rows, cells)
	}
	cols := make([]column, len(headers))
	for j, h := range headers {
		cols[j] = newColumn(j, h, cells)
	}
	var b strings.Builder
	b.WriteString("|")
	for j, h := range headers {
		b.WriteString(pad(h, cols[j].width, 0) + "|")
	}
	b.WriteString("\n|")
	for _, c := range cols {
		if c.kind == kInt || c.kind == kReal {
			b.WriteString(strings.Repeat("-", c.width-1) + ":|")
		} else {
			b.WriteString(strings.Repeat("-", c.width) + "|")
		}
	}
	b.WriteString("\n")
	for _, row := range cells {
		b.WriteString("|")
		for j, x := range row {
			align := -1
			if cols[j].rightAligned(x) {
				align = 1
			}
			b.WriteString(strings.ReplaceAll(pad(cols[j].format(x), cols[j].width, align), "|", `\|`) + "|")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// typeColumn types column j's cells in row order as dataproperty's
// _to_dp_list does: once strings are the commonest kind so far (ties: the
// kind seen first), a non-blank string stays a string, "0.5000" too.
func typeColumn(j int, rows [][]any, cells [][]cell) {
	count := map[kind]int{}
	var seen []kind
	for i, row := range rows {
		s, isStr := row[j].(string)
		if isStr && py.Strip(s) != "" && commonest(count, seen) == kString {
			cells[i][j] = cell{kind: kString, text: s}
		} else {
			cells[i][j] = newCell(row[j])
		}
		k := cells[i][j].kind
		if count[k] == 0 {
			seen = append(seen, k)
		}
		count[k]++
	}
}

// commonest is Counter.most_common(1)'s kind: the first seen of the most
// counted; 0 before any.
func commonest(count map[kind]int, seen []kind) kind {
	var best kind
	for _, k := range seen {
		if best == 0 || count[k] > count[best] {
			best = k
		}
	}
	return best
}

// newColumn types column j and sizes it: at least 3 cells, the header's
// width and every formatted cell's.
func newColumn(j int, header string, cells [][]cell) column {
	var bits kind
	c := column{places: -1}
	for _, row := range cells {
		x := row[j]
		bits |= x.kind
		if x.kind == kInt || x.kind == kReal {
			c.places = max(c.places, x.places)
		}
	}
	c.kind, c.places = columnKind(bits), min(c.places, 100)
	c.width = max(3, cellWidth(header))
	for _, row := range cells {
		c.width = max(c.width, cellWidth(c.format(row[j])))
	}
	return c
}

// pad pads s to width display cells: align -1 left, 1 right, 0 centred
// (the extra space on the right, as Python's "^").
func pad(s string, width, align int) string {
	n := width - cellWidth(s)
	if n <= 0 {
		return s
	}
	switch align {
	case -1:
		return s + strings.Repeat(" ", n)
	case 1:
		return strings.Repeat(" ", n) + s
	}
	return strings.Repeat(" ", n/2) + s + strings.Repeat(" ", n-n/2)
}
