package report

// The comparison's text cells, for renderers outside this package (the
// HTML report of report/charts) that must print exactly what the table,
// markdown and CSV formats print.

// TableRows is the comparison's main table as text: a header row (task,
// metric, the baseline, then per other run its name, change, rel, test, p
// and the mark column) and one row per metric, each cell as
// Comparison.Write prints it.
func (c *Comparison) TableRows() [][]string { return c.tableRows() }

// SummaryRows is the across-runs summary as text: a header row, then per
// other run its average score and perplexity against the baseline, the
// improved and regressed counts and the average change and gain.
func (c *Comparison) SummaryRows() [][]string { return c.summaryRows() }

// FormatNum prints a metric value as the tables do: four decimals (four
// significant digits for magnitudes ≥ 1000 or < 0.001), "-" for NaN.
func FormatNum(f float64) string { return fmtNum(f) }

// FormatSigned prints a change as FormatNum does, with a sign (+0.0500).
func FormatSigned(f float64) string { return fmtSigned(f) }

// FormatPct prints a relative change as a signed percentage (+5.0%), "-"
// for NaN or ±Inf.
func FormatPct(f float64) string { return fmtPct(f) }

// FormatP prints a change's p-value (four decimals, "<0.0001" below), "-"
// when no test was run.
func FormatP(ch Change) string { return fmtP(ch) }
