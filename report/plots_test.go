package report

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
)

func TestPlotsDecode(t *testing.T) {
	c := compareFixture(t, baseDir, tunedDir, baseDir)
	scores, err := ScoresPlot(c)
	if err != nil {
		t.Fatal(err)
	}
	sweep, err := SweepPlot(c)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if d := os.Getenv("GOEVAL_PLOT_DIR"); d != "" {
		dir = d // keep the images to look at
	}
	for name, p := range map[string]*plot.Plot{"scores": scores, "sweep": sweep} {
		for _, ext := range []string{"png", "svg"} {
			path := filepath.Join(dir, name+"."+ext)
			if err := SavePlot(p, path); err != nil {
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
	}
	if err := SavePlot(scores, filepath.Join(dir, "x.gif")); err == nil {
		t.Error(".gif accepted")
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
