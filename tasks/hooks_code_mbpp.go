package tasks

// mbppShots is mbpp/utils.py's list_fewshot_samples: the three solved
// problems (task ids 2, 3, 4 of the MBPP dataset) lm-eval's mbpp prompts
// show, with is_fewshot set (doc_to_target then gives the code).
func mbppShots() []Doc {
	shot := func(id int64, text, code string, tests ...string) Doc {
		l := make([]any, len(tests))
		for i, t := range tests {
			l[i] = t
		}
		return Doc{"task_id": id, "text": text, "code": code, "test_list": l, "is_fewshot": true}
	}
	return []Doc{
		shot(2, "Write a function to find the similar elements from the given two tuple lists.",
			"def similar_elements(test_tup1, test_tup2):\r\n  res = tuple(set(test_tup1) & set(test_tup2))\r\n  return (res) ",
			"assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)",
			"assert similar_elements((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)",
			"assert similar_elements((11, 12, 14, 13),(17, 15, 14, 13)) == (13, 14)"),
		shot(3, "Write a python function to identify non-prime numbers.",
			"import math\r\ndef is_not_prime(n):\r\n    result = False\r\n    for i in range(2,int(math.sqrt(n)) + 1):\r\n        if n % i == 0:\r\n            result = True\r\n    return result",
			"assert is_not_prime(2) == False", "assert is_not_prime(10) == True", "assert is_not_prime(35) == True"),
		shot(4, "Write a function to find the largest integers from a given list of numbers using heap queue algorithm.",
			"import heapq as hq\r\ndef heap_queue_largest(nums,n):\r\n  largest_nums = hq.nlargest(n, nums)\r\n  return largest_nums",
			"assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],3)==[85, 75, 65] ",
			"assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],2)==[85, 75] ",
			"assert heap_queue_largest( [25, 35, 22, 85, 14, 65, 75, 22, 58],5)==[85, 75, 65, 58, 35]"),
	}
}
