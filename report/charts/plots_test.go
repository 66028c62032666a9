package charts

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/report"
)

// TestChartsOnRealRuns draws every chart from the comparison of real
// results files (with samples) and checks the PNG and SVG.
func TestChartsOnRealRuns(t *testing.T) {
	_, c := compareRuns(t, report.CompareOptions{Seed: 1, BootstrapIters: 2000}, baseDir, tunedDir, baseDir)
	dir := t.TempDir()
	for name, draw := range map[string]func(*report.Comparison, Options) (*Chart, error){
		"scores": ScoresChart, "compare": CompareChart, "sweep": SweepChart} {
		ch, err := draw(c, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkLayout(t, name, ch)
		for _, ext := range []string{"png", "svg"} {
			path := filepath.Join(dir, name+"."+ext)
			if err := ch.Save(path); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if ext == "png" {
				img, err := png.Decode(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 150 {
					t.Errorf("%s: tiny image %v", path, b)
				}
			} else {
				checkSVG(t, path, data)
			}
		}
		if err := ch.Save(filepath.Join(dir, "x.gif")); err == nil {
			t.Error(".gif accepted")
		}
	}
}

// checkSVG parses the whole document as XML and wants an <svg> root with
// drawing elements in it.
func checkSVG(t *testing.T, path string, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	root, elems := "", 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: invalid XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			elems++
		}
	}
	if root != "svg" || elems < 20 {
		t.Errorf("%s: root <%s>, %d elements", path, root, elems)
	}
}
