package lm

import "strings"

// FirstStop is the byte offset of the earliest occurrence of any stop
// string (GenerateRequest.Until) in text, or -1; empty stop strings never
// match. Cutting there equals lm-eval's `for term in until: s =
// s.split(term)[0]`. The engine, the OpenAI server and API clients all cut
// generations with it.
func FirstStop(text string, until []string) int {
	best := -1
	for _, u := range until {
		if u == "" {
			continue
		}
		if i := strings.Index(text, u); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}
