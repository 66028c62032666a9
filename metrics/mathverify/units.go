package mathverify

// unitNames is math_normalization's units list (as joined into its regex;
// "integer" "point" is one word there).
var unitNames = []string{
	"integerpoint", "feet", "sue", "digit", "pound", "meal", "edge", "student", "children ticket",
	"multiple", "east", "degree", "mph", "kmph", "ft", "m square", " m east", "sq m", "deg", "mile",
	"q .", "monkey", "prime", "ratio", "profit of rs", "rd", "o", "gm", "p . m", "lb", "tile", "per",
	"dm", "lt", "gain", "ab", "way", "west", "a .", "b .", "c .", "d .", "e .", "f .", "g .", "h .",
	"t", "h", "no change", "men", "soldier", "pie", "bc", "excess", "st", "inches", "noon", "cent",
	"by", "gal", "kmh", "c", "acre", "rise", "a . m", "th", "π r 2", "sq", "mark", "l", "toy", "coin",
	"sq . m", "gallon", "° f", "profit", "minw", "yr", "women", "am", "pm", "hr", "cu cm", "square",
	"v â € ™", "are", "rupee", "rounds", "cubic", "cc", "mtr", "s", "ohm", "number", "kmph", "day",
	"hour", "minute", "min", "second", "man", "woman", "sec", "cube", "mt", "sq inch", "mp",
	"∏ cm ³", "hectare", "more", "sec", "unit", "cu . m", "cm 2", "rs .", "rs", "kg", "g", "month",
	"km", "m", "cm", "mm", "apple", "liter", "loss", "yard", "pure", "year", "increase", "decrease",
	"d", "less", "Surface", "litre", "pi sq m", "s .", "metre", "meter", "inch",
}
