package mathverify

// The literal token rules of PS.g4, in the grammar's order (ties go to the
// earlier rule).

type litRule struct {
	t    tok
	lits []string
}

// literal rules in grammar order (implicit parser literals first).
var litRules = []litRule{
	{tTranspose, []string{"^T", "^{T}", "^{\\\top}", "'"}},
	{tDegree, []string{"^\\circ", "^\\degree", "^\\circle", "^°", "^{\\circ}", "^{\\degree}", "^{\\circle}", "^{°}"}},
	{tSkip, []string{"\\,", "\\thinspace", "\\:", "\\medspace", "\\;", "\\thickspace", "\\quad", "\\qquad", "\\!",
		"\\negthinspace", "\\negmedspace", "\\negthickspace", "\\$", "\\vrule", "\\vcenter", "\\vbox", "\\vskip", "\\vspace", "\\hfil"}},
	{tAdd, []string{"+", "∔", "⊕", "⊞"}},
	{tSub, []string{"-", "−", "∸"}},
	{tMul, []string{"*", "×", "⋅", "⋄", "⊡", "∗", "⋆", "∘", "∙", "⊗", "⊠", "⋈", "⋉", "⋊"}},
	{tDiv, []string{"/", "÷", "∕", "\\over"}},
	{tLParen, []string{"("}}, {tRParen, []string{")"}},
	{tLParenVis, []string{"\\("}}, {tRParenVis, []string{"\\)"}},
	{tLGroup, []string{"\\lgroup"}}, {tRGroup, []string{"\\rgroup"}},
	{tLBrace, []string{"{"}}, {tRBrace, []string{"}"}},
	{tLBraceVis, []string{"\\{"}}, {tRBraceVis, []string{"\\}"}},
	{tLBraceCmd, []string{"\\lbrace"}}, {tRBraceCmd, []string{"\\rbrace"}},
	{tLBracket, []string{"["}}, {tRBracket, []string{"]"}},
	{tLBrack, []string{"\\lbrack"}}, {tRBrack, []string{"\\rbrack"}},
	{tPhantom, []string{"\\phantom"}}, {tBoxed, []string{"\\boxed"}},
	{tBar, []string{"|"}}, {tLVert, []string{"\\lvert"}}, {tRVert, []string{"\\rvert"}}, {tVert, []string{"\\vert"}},
	{tNorm, []string{"\\|"}},
	{tLAngle, []string{"\\langle"}}, {tRAngle, []string{"\\rangle"}},
	{tLFloor, []string{"\\lfloor"}}, {tRFloor, []string{"\\rfloor"}}, {tLLCorner, []string{"\\llcorner"}}, {tLRCorner, []string{"\\lrcorner"}},
	{tLCeil, []string{"\\lceil"}}, {tRCeil, []string{"\\rceil"}}, {tULCorner, []string{"\\ulcorner"}}, {tURCorner, []string{"\\urcorner"}},
	{tLim, []string{"\\lim"}},
	{tLimApproach, []string{"\\to", "\\rightarrow", "\\Rightarrow", "\\longrightarrow", "\\Longrightarrow"}},
	{tInt, []string{"\\int"}}, {tSum, []string{"\\sum"}}, {tProd, []string{"\\prod"}},
	{tFuncSingle, []string{"\\log", "\\ln", "\\exp", "\\sin", "\\cos", "\\tan", "\\csc", "\\sec", "\\cot"}},
	{tFuncGamma, []string{"\\Gamma", "\\gamma"}},
	{tFuncSingle, []string{"\\arcsin", "\\arccos", "\\arctan", "\\arccsc", "\\arcsec", "\\arccot", "\\sinh", "\\cosh", "\\tanh",
		"\\arsinh", "\\arcosh", "\\artanh", "\\arcsinh", "\\arccosh", "\\arctanh"}},
	{tOpName, []string{"arsinh", "arcsinh", "arcosh", "arccosh", "artanh", "arctanh", "gcd", "lcm", "floor", "ceil"}},
	{tSqrt, []string{"\\sqrt"}},
	{tFuncMulti, []string{"\\gcd", "\\lcm"}},
	{tFuncSingle, []string{"\\floor", "\\ceil"}},
	{tFuncMulti, []string{"\\max", "\\min"}},
	{tFuncSingle, []string{"\\det"}},
	{tOpName, []string{"eye", "zeros", "ones", "cols", "rows", "diag", "norm", "rank", "trace", "tr", "rref", "hstack", "vstack",
		"orth", "ortho", "orthogonal", "orthogonalize", "nullspace", "eig", "eigen", "diagonalize", "eigenvals", "eigenvalues",
		"eigenvects", "eigenvectors", "svd", "SVD"}},
	{tTimes, []string{"\\times"}}, {tCdot, []string{"\\cdot"}}, {tCmdDiv, []string{"\\div"}},
	{tFrac, []string{"\\frac", "\\dfrac", "\\tfrac", "\\cfrac"}},
	{tBinom, []string{"\\binom", "\\tbinom", "\\dbinom"}}, {tChoose, []string{"\\choose"}}, {tMod, []string{"\\mod"}},
	{tMathit, []string{"\\mathit"}}, {tOperatorname, []string{"\\operatorname"}},
	{tMatrixWord, []string{"matrix", "pmatrix", "bmatrix", "vmatrix"}},
	{tMatrixStart, []string{"\\begin{matrix}", "\\begin{pmatrix}", "\\begin{bmatrix}"}},
	{tMatrixEnd, []string{"\\end{matrix}", "\\end{pmatrix}", "\\end{bmatrix}"}},
}

// literal rules after the array/det environments and NUMBER-like rules.
var litRules2 = []litRule{
	{tArrayEnd, []string{"\\end{array}"}},
	{tDetStart, []string{"\\begin{vmatrix}"}}, {tDetEnd, []string{"\\end{vmatrix}"}},
	{tAmp, []string{"&"}}, {tRowSep, []string{"\\\\"}},
	{tUnderscore, []string{"_"}}, {tCaret, []string{"^"}}, {tColon, []string{":"}}, {tSemicolon, []string{";"}},
	{tComma, []string{","}}, {tPeriod, []string{"."}},
}

var litRules3 = []litRule{
	{tExpE, []string{"e", "\\exponentialE"}}, {tENotationE, []string{"E"}},
}

var litRules4 = []litRule{
	{tXRightArrow, []string{"\\xrightarrow", "\\xRightarrow"}},
	{tTransformExchange, []string{"<->", "<=>", "\\leftrightarrow", "\\Leftrightarrow"}},
}

var litRules5 = []litRule{
	{tIn, []string{"\\in"}},
	{tAssign, []string{"=", "≡", "≣", "≟", "≎", "≏", "≐", "≑", "≒", "≓", "≔", "≕", "≖", "≗"}},
	{tEqual, []string{"==", "\\equiv"}},
	{tApprox, []string{"~=", "≈", "≊", "≋", "≃", "≅", "\\approx"}},
	{tLT, []string{"<", "≪", "≺", "⋖", "\\lt"}},
	{tLTE, []string{"\\leq", "\\le", "\\leqslant", "≤", "≦", "≲", "≾", "<="}},
	{tGT, []string{">", "≫", "≻", "⋗", "\\gt"}},
	{tGTE, []string{"\\geq", "\\ge", "\\geqslant", "≥", "≧", "≳", "≿", ">="}},
	{tUnequal, []string{"!=", "!==", "\\ne", "\\neq", "\\not\\equiv", "≠", "≁", "≄", "≇", "≉", "≢"}},
	{tBang, []string{"!"}},
}

var litRules6 = []litRule{
	{tSetLiteral, []string{"\\mathbb{N}", "ℕ", "\\mathbb{Z}", "ℤ", "\\mathbb{Q}", "ℚ", "\\mathbb{R}", "ℝ", "\\mathbb{C}", "ℂ", "\\mathbb{P}", "ℙ"}},
}

var litRules7 = []litRule{
	{tUnion, []string{"\\cup", "∪"}}, {tIntersection, []string{"\\cap", "∩"}}, {tSetMinus, []string{"\\setminus", "∖"}},
	{tPlusMinus, []string{"\\pm", "±", "∓", "\\mp"}},
	{tSetLiteral, []string{"\\emptyset", "∅", "\\{\\}", "\\lbrace\\rbrace"}},
	{tSupset, []string{"\\supseteq", "⊇"}}, {tSubset, []string{"\\subseteq", "⊆"}}, {tNotIn, []string{"\\notin", "∉"}},
}
