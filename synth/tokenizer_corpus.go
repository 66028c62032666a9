package synth

// tokenizerCorpus is the text the synthetic tokenizer learns its merges from: plain
// English in the style of the benchmark questions, numbers and some code, so
// that the merges look like a real tokenizer's (common words become one token).
const tokenizerCorpus = `Question: Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?
Answer: Natalia sold 48/2 = 24 clips in May. Natalia sold 48+24 = 72 clips altogether in April and May. #### 72
Question: Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How much did she earn?
Answer: Weng earns 12/60 = $0.2 per minute. Working 50 minutes, she earned 0.2 x 50 = $10. #### 10
The following are multiple choice questions (with answers) about abstract algebra, anatomy, astronomy, biology, chemistry, computer science, economics, physics and mathematics.
Which of the following is the correct answer? A. the first one B. the second one C. the third one D. the fourth one
Answer: B
A man is sitting on a roof. He starts pulling up roofing on top of the roof. Then, the man is using a ladder to climb down from the house.
The woman is standing in the kitchen and she is cutting vegetables with a knife, then she puts them into a pot of boiling water.
Goal: How do you open a jar that is stuck? Solution: Run the lid under hot water for a minute and then twist it with a towel.
The trophy doesn't fit into the brown suitcase because the trophy is too large. The city councilmen refused the demonstrators a permit because they feared violence.
Is the sky blue during the day? yes. Does water boil at fifty degrees at sea level? no.
Passage: In the first quarter, the home team scored a touchdown and a field goal. The visitors answered with two touchdowns in the second quarter.
How many points were scored in the first half? What is the value of x if 2x + 3 = 11? The answer is $\boxed{4}$.
Find the derivative of f(x) = x^2 + 3x - 5. Simplify the fraction 12/18 to lowest terms. The probability of rolling a six is 1/6.
func main() { for i := 0; i < 10; i++ { fmt.Println(i) } }
def add(a, b):
    return a + b
= Valkyria Chronicles III =
Senjō no Valkyria 3 : Unrecorded Chronicles is a tactical role @-@ playing video game developed by Sega and Media.Vision for the PlayStation Portable .
The game began development in 2010 , carrying over a large portion of the work done on Valkyria Chronicles II .
Science is the study of the natural world. The students observed the plants in the garden and measured how tall they grew each week.
There are 365 days in a year, 12 months, 52 weeks, 24 hours in a day, 60 minutes in an hour and 60 seconds in a minute.
`
