package models

import "github.com/gomlx/gomlx/backends"

// WrapTestModel wraps a model loaded on backend b for Score (external tests
// that load with their own LoadOptions).
func WrapTestModel(b backends.Backend, l *Loaded) *TestModel {
	return &testModel{backend: b, ctx: l.Context, model: l.Model}
}
