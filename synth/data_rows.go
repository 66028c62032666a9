package synth

import (
	"fmt"
	"strconv"
	"strings"
)

// Row types mirror the Hugging Face schemas (column names, order, types).

type gsmRow struct {
	Question string `parquet:"question"`
	Answer   string `parquet:"answer"`
}

type mmluRow struct {
	Question string   `parquet:"question"`
	Subject  string   `parquet:"subject"`
	Choices  []string `parquet:"choices,list"`
	Answer   int64    `parquet:"answer"`
}

type hellaRow struct {
	Ind           int64    `parquet:"ind"`
	ActivityLabel string   `parquet:"activity_label"`
	CtxA          string   `parquet:"ctx_a"`
	CtxB          string   `parquet:"ctx_b"`
	Ctx           string   `parquet:"ctx"`
	Endings       []string `parquet:"endings,list"`
	SourceID      string   `parquet:"source_id"`
	Split         string   `parquet:"split"`
	SplitType     string   `parquet:"split_type"`
	Label         string   `parquet:"label"`
}

type textLabel struct {
	Text  []string `parquet:"text,list"`
	Label []string `parquet:"label,list"`
}

type arcRow struct {
	ID        string    `parquet:"id"`
	Question  string    `parquet:"question"`
	Choices   textLabel `parquet:"choices"`
	AnswerKey string    `parquet:"answerKey"`
}

type obqaRow struct {
	ID           string    `parquet:"id"`
	QuestionStem string    `parquet:"question_stem"`
	Choices      textLabel `parquet:"choices"`
	AnswerKey    string    `parquet:"answerKey"`
}

type piqaRow struct {
	Goal  string `parquet:"goal"`
	Sol1  string `parquet:"sol1"`
	Sol2  string `parquet:"sol2"`
	Label int64  `parquet:"label"`
}

type winoRow struct {
	Sentence string `parquet:"sentence"`
	Option1  string `parquet:"option1"`
	Option2  string `parquet:"option2"`
	Answer   string `parquet:"answer"`
}

type boolqRow struct {
	Question string `parquet:"question"`
	Passage  string `parquet:"passage"`
	Idx      int32  `parquet:"idx"`
	Label    int64  `parquet:"label"`
}

type dropDate struct {
	Day   string `parquet:"day"`
	Month string `parquet:"month"`
	Year  string `parquet:"year"`
}

type dropAnswer struct {
	Number   string   `parquet:"number"`
	Date     dropDate `parquet:"date"`
	Spans    []string `parquet:"spans,list"`
	WorkerID string   `parquet:"worker_id"`
	HitID    string   `parquet:"hit_id"`
}

type dropValidated struct {
	Number   []string   `parquet:"number,list"`
	Date     []dropDate `parquet:"date,list"`
	Spans    [][]string `parquet:"spans,list"`
	WorkerID []string   `parquet:"worker_id,list"`
	HitID    []string   `parquet:"hit_id,list"`
}

type dropRow struct {
	SectionID        string        `parquet:"section_id"`
	QueryID          string        `parquet:"query_id"`
	Passage          string        `parquet:"passage"`
	Question         string        `parquet:"question"`
	Answer           dropAnswer    `parquet:"answer"`
	ValidatedAnswers dropValidated `parquet:"validated_answers"`
}

type mathRow struct {
	Problem  string `parquet:"problem"`
	Level    string `parquet:"level"`
	Type     string `parquet:"type"`
	Solution string `parquet:"solution"`
}

type pageRow struct {
	Page string `parquet:"page"`
}

type lambadaRow struct {
	Text string `parquet:"text"`
}

var dataLetters = []string{"A", "B", "C", "D"}

// dataCatalog lists every dataset the built-in tasks read, with its splits
// and row maker.
func dataCatalog() []*dataSet {
	return append(append(questionDataSets(), choiceDataSets()...), textDataSets()...)
}

// questionDataSets: gsm8k, MMLU and HellaSwag.
func questionDataSets() []*dataSet {
	three := []string{"train", "validation", "test"}
	return []*dataSet{
		{path: "openai/gsm8k", splits: []string{"train", "test"}, write: func(g dataGen, _, _ string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) gsmRow {
				a, b := g.num(), g.r.IntN(90)+1
				ans := fmt.Sprintf("%s has %d %s and gets %d more.\nSo %d + %d = <<%d+%d=%d>>%d in total.\n#### %s",
					g.word(), a, g.word(), b, a, b, a, b, a+b, a+b, dataCommas(a+b))
				return gsmRow{Question: g.sentence() + " How many " + g.word() + " are there now?", Answer: ans}
			}))
		}},
		{path: "cais/mmlu", splits: []string{"test", "validation", "dev"}, write: func(g dataGen, cfg, _ string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) mmluRow {
				ch := []string{g.words(2), strconv.Itoa(g.num()), g.words(1) + "!", g.words(3)}
				q := g.sentence()
				if i%4 == 0 {
					q = "  " + q + "\n"
				}
				return mmluRow{Question: q, Subject: cfg, Choices: ch, Answer: int64(g.r.IntN(4))}
			}))
		}},
		{path: "Rowan/hellaswag", splits: three, write: func(g dataGen, _, split string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) hellaRow {
				a, b := g.sentence(), strings.ToUpper(g.words(4))
				if i%3 == 0 {
					a += " [title] " + g.words(2) + " [step]"
				}
				end := make([]string, 4)
				for j := range end {
					end[j] = g.words(3+j) + "."
					if (i+j)%4 == 0 {
						end[j] = " [substeps] " + end[j] + "  " + g.word()
					}
				}
				lbl := strconv.Itoa(g.r.IntN(4))
				if split == "test" {
					lbl = ""
				}
				return hellaRow{Ind: int64(i), ActivityLabel: g.words(2), CtxA: a, CtxB: b, Ctx: a + " " + b, Endings: end,
					SourceID: fmt.Sprintf("wikihow~%d", i), Split: split, SplitType: "indomain", Label: lbl}
			}))
		}},
	}
}

// choiceDataSets: ARC, OpenBookQA, PIQA, WinoGrande and SuperGLUE.
func choiceDataSets() []*dataSet {
	three := []string{"train", "validation", "test"}
	return []*dataSet{
		{path: "allenai/ai2_arc", splits: three, write: func(g dataGen, cfg, _ string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) arcRow {
				k := 3 + i%3
				labels := dataLetters[:min(k, 4)]
				if i%5 == 0 {
					labels = []string{"1", "2", "3", "4"}[:min(k, 4)]
				}
				if k == 5 {
					labels = []string{"A", "B", "C", "D", "E"}
				}
				tl := textLabel{Label: labels}
				for range labels {
					tl.Text = append(tl.Text, g.words(1+g.r.IntN(4)))
				}
				return arcRow{ID: fmt.Sprintf("%s_%d", cfg, i), Question: g.sentence(), Choices: tl, AnswerKey: labels[g.r.IntN(len(labels))]}
			}))
		}},
		{path: "allenai/openbookqa", splits: three, write: func(g dataGen, _, _ string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) obqaRow {
				tl := textLabel{Label: dataLetters}
				for range dataLetters {
					tl.Text = append(tl.Text, g.words(1+g.r.IntN(3)))
				}
				key := dataLetters[g.r.IntN(4)]
				if i%4 == 1 {
					key = " " + key
				}
				return obqaRow{ID: fmt.Sprintf("%d-%d", i, g.r.IntN(999)), QuestionStem: g.words(6), Choices: tl, AnswerKey: key}
			}))
		}},
		{path: "baber/piqa", splits: []string{"train", "validation"}, write: func(g dataGen, _, _ string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) piqaRow {
				return piqaRow{Goal: g.sentence(), Sol1: g.words(5), Sol2: g.words(7), Label: int64(g.r.IntN(2))}
			}))
		}},
		{path: "allenai/winogrande", splits: three, write: func(g dataGen, _, split string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) winoRow {
				ans := strconv.Itoa(1 + g.r.IntN(2))
				if split == "test" {
					ans = ""
				}
				return winoRow{Sentence: g.words(4) + " _ " + g.words(5) + ".", Option1: g.word(), Option2: g.words(2), Answer: ans}
			}))
		}},
		{path: "aps/super_glue", splits: three, write: func(g dataGen, _, split string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) boolqRow {
				lbl := int64(g.r.IntN(2))
				if split == "test" {
					lbl = -1
				}
				return boolqRow{Question: strings.ToLower(g.words(6)), Passage: g.sentence() + " " + g.sentence(), Idx: int32(i), Label: lbl}
			}))
		}},
	}
}

// textDataSets: DROP, MATH, WikiText and LAMBADA.
func textDataSets() []*dataSet {
	three := []string{"train", "validation", "test"}
	return []*dataSet{
		{path: "EleutherAI/drop", splits: []string{"train", "validation"}, write: dataDrop},
		{path: "EleutherAI/hendrycks_math", splits: []string{"train", "test"}, write: dataMath},
		{path: "EleutherAI/wikitext_document_level", splits: three, write: func(g dataGen, _, _ string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) pageRow {
				page := " = " + g.words(2) + " = \n \n " + g.sentence() + " The 1 @,@ 000 @-@ mile ( " + g.word() + " ) trip , " +
					"he said \" " + g.words(2) + " \" . It 's N ° 5 @.@ 5 .\n \n = = " + g.word() + " = = \n \n " + g.sentence() + " \n"
				return pageRow{Page: page}
			}))
		}},
		{path: "EleutherAI/lambada_openai", splits: []string{"test"}, write: func(g dataGen, _, _ string, n int, p string) error {
			return writeDataRows(p, dataRowsOf(n, func(i int) lambadaRow {
				return lambadaRow{Text: g.sentence() + " " + g.words(6) + " " + strings.Trim(g.word(), " ")}
			}))
		}},
	}
}

// dataCommas formats n with thousands separators, as gsm8k answers sometimes do.
func dataCommas(n int) string {
	s := strconv.Itoa(n)
	if n < 1000 {
		return s
	}
	var b []string
	for len(s) > 3 {
		b = append([]string{s[len(s)-3:]}, b...)
		s = s[:len(s)-3]
	}
	return strings.Join(append([]string{s}, b...), ",")
}

func dataDrop(g dataGen, _, _ string, n int, p string) error {
	return writeDataRows(p, dataRowsOf(n, func(i int) dropRow {
		var a dropAnswer
		switch i % 3 {
		case 0:
			a.Number = strconv.Itoa(g.r.IntN(100))
		case 1:
			a.Spans = []string{g.words(2), g.word()}[:1+i%2]
		default:
			a.Date = dropDate{Day: strconv.Itoa(1 + g.r.IntN(28)), Month: "March", Year: strconv.Itoa(1900 + g.r.IntN(120))}
		}
		a.WorkerID, a.HitID = "", ""
		v := dropValidated{}
		for j := 0; j < i%3; j++ {
			v.Number = append(v.Number, []string{"", a.Number, "7"}[j%3])
			v.Date = append(v.Date, dropDate{})
			v.Spans = append(v.Spans, []string{g.word()})
			v.WorkerID = append(v.WorkerID, "")
			v.HitID = append(v.HitID, "")
		}
		return dropRow{SectionID: fmt.Sprintf("nfl_%d", i/4), QueryID: fmt.Sprintf("q-%04x", g.r.IntN(65536)),
			Passage: g.sentence() + " " + g.sentence(), Question: "How many " + g.words(3) + "?", Answer: a, ValidatedAnswers: v}
	}))
}

func dataMath(g dataGen, cfg, _ string, n int, p string) error {
	answers := []string{"\\frac{3}{4}", "12", "-\\frac{2}{3}", "\\sqrt{2}", "5\\text{ cm}", "(1,2)", "0.5", "x^2+1", "1,000", "\\dfrac{1}{2}", "10\\%", "90^\\circ"}
	return writeDataRows(p, dataRowsOf(n, func(i int) mathRow {
		a := answers[(i+g.r.IntN(3))%len(answers)]
		sol := fmt.Sprintf("We compute $%d + %d$. %s Therefore the answer is $\\boxed{%s}$.", g.num(), g.num(), g.sentence(), a)
		if i%7 == 3 {
			sol = fmt.Sprintf("Thus $x = \\boxed %d$.", g.r.IntN(50))
		}
		return mathRow{Problem: "Find $" + g.words(2) + "$ if $x=" + strconv.Itoa(g.num()) + "$. " + g.sentence(),
			Level: fmt.Sprintf("Level %d", 1+g.r.IntN(5)), Type: strings.ReplaceAll(cfg, "_", " "), Solution: sol}
	}))
}
