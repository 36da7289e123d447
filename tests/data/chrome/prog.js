// SPDX-License-Identifier: MIT
// A small Node program for stackview's .cpuprofile tests: recursion, anonymous functions
// (two on one line), JSON work and allocation (garbage collector time). record.sh runs it
// under node --cpu-prof.
'use strict';
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function jsonWork() {
	const o = [];
	for (let i = 0; i < 2000; i++) o.push({ i, s: 'x'.repeat(i % 50), a: [i, i * 2, i * 3] });
	return JSON.parse(JSON.stringify(o)).length;
}
const squares = (xs) => xs.map((x) => x * x).filter((y) => y % 3 === 1);
function main() {
	const end = Date.now() + 1500;
	let sink = 0;
	while (Date.now() < end) {
		sink += fib(22);
		sink += jsonWork();
		sink += squares(Array.from({ length: 5000 }, (_, i) => i)).length;
	}
	return sink;
}
console.log(main() > 0 ? 'ok' : 'never');
