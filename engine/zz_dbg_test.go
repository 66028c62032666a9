package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestDbgGen(t *testing.T) {
	dir := filepath.Join(fixturesDir(t), "tiny-llama")
	gens := readJSONL[fixtureGenerate](t, filepath.Join(dir, "generate.jsonl"))
	ctxs, maxGen := make([][]int32, len(gens)), make([]int, len(gens))
	for i, g := range gens {
		ctxs[i], maxGen[i] = g.ContextIDs, g.MaxNewTokens
	}
	start := time.Now()
	e := openFixture(t, "tiny-llama", Options{BatchSize: 8, Logf: t.Logf})
	t.Logf("open %v", time.Since(start))
	start = time.Now()
	_, err := e.generateItems(context.Background(), idItems(t, e, ctxs, maxGen))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gen %v %+v %+v", time.Since(start), e.GenStats(), e.Stats())
}
