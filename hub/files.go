package hub

import "context"

// ModelFiles are the files goeval reads from a model repository: config,
// generation config, safetensors weights and their index, and the
// tokenizer in its known spellings.
var ModelFiles = []string{
	"config.json", "generation_config.json", "*.safetensors", "model.safetensors.index.json",
	"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "tokenizer.model",
	"vocab.json", "merges.txt", "added_tokens.json", "chat_template.jinja", "chat_template.json",
}

// AdapterFiles are the files of a PEFT adapter repository (tokenizer files
// too: an adapter may ship its own chat template).
var AdapterFiles = append([]string{"adapter_config.json", "adapter_model.safetensors"}, ModelFiles[4:]...)

// ParquetRevision is the branch the Hub fills with a parquet conversion
// of every dataset (CONFIG/SPLIT/NNNN.parquet).
const ParquetRevision = "refs/convert/parquet"

// FetchDataset fetches the files of dataset r matching patterns; when r
// names no revision and its main branch has none of them (a script-based
// dataset), the parquet conversion branch is used instead.
func (c *Client) FetchDataset(ctx context.Context, r Repo, patterns []string) (*Snapshot, error) {
	s, err := c.fetch(ctx, r, patterns, false)
	if r.Revision != "" || (err == nil && len(s.Files) > 0) {
		return s, err
	}
	conv := r
	conv.Revision = ParquetRevision
	if s2, err2 := c.fetch(ctx, conv, patterns, false); err2 == nil && len(s2.Files) > 0 {
		return s2, nil
	}
	return s, err
}
