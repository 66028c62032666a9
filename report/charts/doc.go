// Package charts draws a comparison of lm-eval runs (report.Comparison)
// and writes the HTML report that embeds the drawings. A chart — per-task
// scores, changes against a baseline with their 95 % intervals, or score
// vs checkpoint — is laid out as a Chart (every text box and mark placed,
// so tests can check the layout) and drawn with gonum/plot's canvases as
// PNG or SVG; WriteHTML puts the comparison's tables, the charts as inline
// SVG and example docs of the largest regressions in one self-contained
// page.
//
// It is apart from package report so that a program that only reads or
// writes lm-eval's files (a Go training loop logging its results) links no
// plotting library.
package charts
