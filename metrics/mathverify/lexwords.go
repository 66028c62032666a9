package mathverify

// Token spellings of PS.g4's GREEK_LETTER, OTHER_SYMBOL and ACCENT_CMD fragments.

var greekLetters = []string{
	"\\alpha", "α", "\\char\"000391", "\\char000391", "\\beta", "β", "\\char\"000392", "\\char000392",
	"\\gamma", "γ", "\\Gamma", "Γ", "\\delta", "δ", "\\Delta", "Δ", "\\epsilon", "ε", "\\char\"000190",
	"\\char000190", "\\varepsilon", "ϵ", "\\zeta", "ζ", "\\char\"000396", "\\char000396", "\\eta", "η",
	"\\char\"000397", "\\char000397", "\\theta", "θ", "\\Theta", "Θ", "\\vartheta", "ϑ", "\\iota", "ι",
	"\\char\"000399", "\\char000399", "\\kappa", "κ", "\\char\"00039A", "\\char00039A", "\\lambda", "λ",
	"\\Lambda", "Λ", "\\mu", "μ", "\\char\"00039C", "\\char00039C", "\\nu", "ν", "\\char\"00039D",
	"\\char00039D", "\\xi", "ξ", "\\Xi", "Ξ", "\\omicron", "ο", "\\char\"00039F", "\\char00039F", "\\pi", "π",
	"\\Pi", "Π", "\\varpi", "ϖ", "\\rho", "ρ", "\\char\"0003A1", "\\char0003A1", "\\varrho", "ϱ", "\\sigma",
	"σ", "\\Sigma", "Σ", "\\varsigma", "ς", "\\tau", "τ", "\\char\"0003A4", "\\char0003A4", "\\upsilon", "υ",
	"\\Upsilon", "Υ", "\\phi", "φ", "\\Phi", "Φ", "\\varphi", "ϕ", "\\chi", "χ", "\\char\"0003A7",
	"\\char0003A7", "\\psi", "ψ", "\\Psi", "Ψ", "\\omega", "ω", "\\Omega", "Ω",
}

var otherSymbols = []string{
	"\\Bbbk", "\\wp", "\\nabla", "\\bigstar", "\\angle", "\\nexists", "\\diagdown", "\\measuredangle", "\\eth",
	"ℵ", "ℶ", "ℷ", "ℸ", "\\diagup", "\\sphericalangle", "\\clubsuit", "\\varnothing", "\\Diamond",
	"\\complement", "\\diamondsuit", "\\imath", "\\Finv", "\\triangledown", "\\heartsuit", "\\jmath", "\\Game",
	"\\triangle", "\\spadesuit", "\\ell", "\\hbar", "\\vartriangle", "\\hslash", "\\blacklozenge", "\\lozenge",
	"\\blacksquare", "\\mho", "\\blacktriangle", "\\sharp", "\\prime", "\\Im", "\\flat", "\\square",
	"\\backprime", "\\Re", "\\natural", "\\surd", "\\circledS",
}

var accentCmds = []string{
	"\\acute", "\\bar", "\\overline", "\\breve", "\\check", "\\widecheck", "\\dot", "\\ddot", "\\grave",
	"\\hat", "\\tilde", "\\widetilde", "\\vec", "\\overrightarrow", "\\bm", "\\boldsymbol", "\\text",
	"\\textit", "\\textbf", "\\textnormal", "\\mathbb", "\\mathbin", "\\mathbf", "\\mathcal", "\\mathclap",
	"\\mathclose", "\\mathellipsis", "\\mathfrak", "\\mathinner", "\\mathit", "\\mathnormal", "\\mathop",
	"\\mathopen", "\\mathord", "\\mathpunct", "\\mathrel", "\\mathring", "\\mathrlap", "\\mathrm", "\\mathscr",
	"\\mathsf", "\\mathsterling", "\\mathtt", "\\mbox",
}
