package judge

import "strconv"

func fmtFloat(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
