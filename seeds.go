package goeval

import (
	"encoding/binary"
	"hash/fnv"
)

// DefaultSamplingSeed is lm-eval's default torch_random_seed (the third
// value of --seed).
const DefaultSamplingSeed = 1234

// Sampled answers and their seeds. lm-eval seeds torch once per run and
// draws every sampled token of every request from that one generator, so
// an answer depends on its batch and on the requests before it. goeval's
// LMs sample each request with its own seed (lm.GenerateRequest.Seed), and
// the evaluator derives that seed from the run's sampling seed, the task,
// the document and the repeat: an answer is the same in one process or
// shard by shard, whatever the batch size or the other tasks, and the
// repeats of one document differ from each other.

// answerSeed is the sampling seed of the answer ref locates.
func answerSeed(runs []*taskRun, ref reqRef, opts Options) uint64 {
	base := int64(DefaultSamplingSeed)
	if opts.SamplingSeed != nil {
		base = *opts.SamplingSeed
	}
	r := runs[ref.run]
	return sampleSeed(base, r.task.Name(), r.insts[ref.inst].DocID, ref.req, ref.rep)
}

// sampleSeed hashes (seed, task, document, request, repeat) to 64 bits:
// FNV-1a over their bytes, then splitmix64's finaliser to spread it.
func sampleSeed(seed int64, task string, doc, req, rep int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range []int64{seed, int64(doc), int64(req), int64(rep)} {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	h.Write([]byte(task))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
