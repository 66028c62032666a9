package models

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
)

// Hooks for the external fixture tests (fixtures_ext_test.go), which need
// package fixturemodel and so cannot live in package models.

// TestModel is a model loaded on the pure-Go backend by LoadTestModel.
type TestModel = testModel

// LoadTestModel loads dir with an optional merged-adapter transform.
func LoadTestModel(t *testing.T, dir string, tf WeightTransform) *TestModel {
	return loadTestModel(t, dir, tf)
}

// Score returns per-token continuation log-probs with separate-mode
// adapter index (-1: none).
func (tm *testModel) Score(t *testing.T, reqs []scoreReq, adapter int) [][]float64 {
	return tm.score(t, reqs, adapter)
}

// AddAdapter loads a as separate-mode adapter 0.
func (tm *testModel) AddAdapter(t *testing.T, a *Adapter) {
	t.Helper()
	if err := LoadAdapterVariables(tm.ctx, tm.backend, a, 0, dtypes.Float32); err != nil {
		t.Fatal(err)
	}
}

// MaxDiff and MaxDiffRuns compare runs with references and with each other.
var (
	MaxDiff     = maxDiff
	MaxDiffRuns = maxDiffRuns
)
