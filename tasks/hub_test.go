package tasks

import (
	"reflect"
	"testing"
)

// TestDataFiles checks the files a task asks the Hub for: its evaluation
// and few-shot splits in every layout loadSplit reads.
func TestDataFiles(t *testing.T) {
	path, pats, err := NewIndex().DataFiles("gsm8k")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"main/test.jsonl", "main/test-*.parquet", "main/test/*.parquet", "main/partial-test/*.parquet",
		"main/train.jsonl", "main/train-*.parquet", "main/train/*.parquet", "main/partial-train/*.parquet"}
	if path != "openai/gsm8k" || !reflect.DeepEqual(pats, want) {
		t.Errorf("DataFiles(gsm8k) = %s %q, want openai/gsm8k %q", path, pats, want)
	}
	_, pats, err = NewIndex().DataFiles("hellaswag") // config "default": the data/ layouts too
	if err != nil {
		t.Fatal(err)
	}
	if !contains(pats, "data/validation-*.parquet") || !contains(pats, "data/train-*.parquet") {
		t.Errorf("DataFiles(hellaswag) = %q, want data/validation-*.parquet and data/train-*.parquet", pats)
	}
	if _, _, err := NewIndex().DataFiles("nosuch"); err == nil {
		t.Error("DataFiles(nosuch): no error")
	}
}
