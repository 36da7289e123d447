/* SPDX-License-Identifier: MIT */
/* The qualified name in an MSVC-decorated symbol (msvc_demangle.h): `?draw@Widget@ns@@QAEXXZ`
 * -> `ns::Widget::draw`, with template arguments (`std::vector<int *,std::allocator<int *> >`),
 * constructors, destructors, operators and the compiler's special functions
 * (`` `scalar deleting destructor' ``), written as Microsoft's undname and DIA write them.
 * Only the name: no parameters or return type (frames do not show them). Anything it does not
 * know (function-pointer arguments, nested function scopes, RTTI descriptors, string
 * literals) makes it give up, and the caller keeps the decorated name. The grammar is the one
 * LLVM's MicrosoftDemangle and Wine's undname implement. */
#include "msvc_demangle.h"

#include <stdio.h>
#include <string.h>

#define MAX_BACKREFS 10
#define MAX_DEPTH 16 /* templates within templates */

typedef struct out {
	char *p;
	size_t cap, len;
	bool full;
} out;

typedef struct names {
	char text[MAX_BACKREFS][256];
	int n;
} names;

typedef struct dm {
	const char *s, *end;
	int depth;
} dm;

static void put(out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		o->full = true;
		n = o->cap > o->len + 1 ? o->cap - o->len - 1 : 0;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }

static bool peek(const dm *d, const char *lit)
{
	size_t n = strlen(lit);
	return (size_t)(d->end - d->s) >= n && !memcmp(d->s, lit, n);
}

static bool eat(dm *d, const char *lit)
{
	if (!peek(d, lit))
		return false;
	d->s += strlen(lit);
	return true;
}

static void remember(names *nm, const char *s, size_t n)
{
	if (nm->n >= MAX_BACKREFS || n >= sizeof(nm->text[0]))
		return;
	for (int i = 0; i < nm->n; i++) /* a name already there is not added again */
		if (strlen(nm->text[i]) == n && !memcmp(nm->text[i], s, n))
			return;
	memcpy(nm->text[nm->n], s, n);
	nm->text[nm->n][n] = '\0';
	nm->n++;
}

/* An identifier up to '@' (remembered). */
static bool identifier(dm *d, names *nm, out *o)
{
	const char *at = memchr(d->s, '@', (size_t)(d->end - d->s));
	if (!at || at == d->s)
		return false;
	put(o, d->s, (size_t)(at - d->s));
	remember(nm, d->s, (size_t)(at - d->s));
	d->s = at + 1;
	return true;
}

static bool qualified(dm *d, names *nm, out *o);
static bool template_name(dm *d, names *outer, out *o);

/* A number: '0'..'9' stand for 1..10, else hex digits 'A'..'P' up to '@'; '?' negates. */
static bool number(dm *d, long long *v)
{
	bool neg = eat(d, "?");
	if (d->s < d->end && *d->s >= '0' && *d->s <= '9') {
		*v = *d->s++ - '0' + 1;
	} else {
		unsigned long long x = 0;
		int k = 0;
		while (d->s < d->end && *d->s >= 'A' && *d->s <= 'P' && k < 16)
			x = x * 16 + (unsigned long long)(*d->s++ - 'A'), k++;
		if (!eat(d, "@"))
			return false;
		*v = (long long)x;
	}
	if (neg)
		*v = -*v;
	return true;
}

/* A type, as a template argument shows it ("unsigned int", "std::string const *"). */
static bool type(dm *d, names *nm, out *o)
{
	static const struct { const char *code, *name; } basic[] = {
		{ "X", "void" }, { "D", "char" }, { "C", "signed char" }, { "E", "unsigned char" }, { "F", "short" },
		{ "G", "unsigned short" }, { "H", "int" }, { "I", "unsigned int" }, { "J", "long" }, { "K", "unsigned long" },
		{ "M", "float" }, { "N", "double" }, { "O", "long double" }, { "_N", "bool" }, { "_J", "__int64" },
		{ "_K", "unsigned __int64" }, { "_W", "wchar_t" }, { "_S", "char16_t" }, { "_U", "char32_t" },
		{ "_Q", "char8_t" }, { "$$T", "std::nullptr_t" },
	};
	for (size_t i = 0; i < sizeof(basic) / sizeof(basic[0]); i++)
		if (eat(d, basic[i].code)) {
			puts_(o, basic[i].name);
			return true;
		}
	const char *ptr = NULL;
	if (eat(d, "$$Q"))
		ptr = " &&";
	else if (eat(d, "A"))
		ptr = " &";
	else if (eat(d, "P"))
		ptr = " *";
	else if (eat(d, "Q"))
		ptr = " * const";
	else if (eat(d, "R"))
		ptr = " * volatile";
	else if (eat(d, "S"))
		ptr = " * const volatile";
	if (ptr) {
		eat(d, "E"); /* __ptr64 */
		if (d->s >= d->end || *d->s < 'A' || *d->s > 'D')
			return false; /* function and member pointers: not here */
		char cv = *d->s++;
		if (!type(d, nm, o))
			return false;
		puts_(o, cv == 'B' ? " const" : cv == 'C' ? " volatile" : cv == 'D' ? " const volatile" : "");
		puts_(o, ptr);
		return true;
	}
	if (eat(d, "U") || eat(d, "V") || eat(d, "T"))
		return qualified(d, nm, o);
	if (eat(d, "W4"))
		return qualified(d, nm, o);
	return false;
}

/* One template argument. */
static bool template_arg(dm *d, names *nm, out *o)
{
	if (eat(d, "$0")) {
		long long v;
		if (!number(d, &v))
			return false;
		char b[32];
		snprintf(b, sizeof(b), "%lld", v);
		puts_(o, b);
		return true;
	}
	return type(d, nm, o);
}

/* "?$Name@args@": the name with its arguments, in a fresh back-reference table; the whole
 * text is then remembered in the outer one. */
static bool template_name(dm *d, names *outer, out *o)
{
	if (++d->depth > MAX_DEPTH)
		return false;
	names inner = { .n = 0 };
	size_t start = o->len;
	if (!identifier(d, &inner, o))
		return false;
	puts_(o, "<");
	bool first = true;
	while (!eat(d, "@")) {
		if (d->s >= d->end)
			return false;
		if (!first)
			puts_(o, ",");
		first = false;
		if (!template_arg(d, &inner, o))
			return false;
	}
	puts_(o, o->len && o->p[o->len - 1] == '>' ? " >" : ">");
	if (outer)
		remember(outer, o->p + start, o->len - start);
	d->depth--;
	return true;
}

/* One scope or name fragment into o (not yet joined). */
static bool fragment(dm *d, names *nm, out *o)
{
	if (d->s < d->end && *d->s >= '0' && *d->s <= '9') {
		int i = *d->s++ - '0';
		if (i >= nm->n)
			return false;
		puts_(o, nm->text[i]);
		return true;
	}
	if (eat(d, "?$"))
		return template_name(d, nm, o);
	if (eat(d, "?A0x")) { /* an anonymous namespace, by its hash */
		const char *at = memchr(d->s, '@', (size_t)(d->end - d->s));
		if (!at)
			return false;
		d->s = at + 1;
		puts_(o, "`anonymous namespace'");
		return true;
	}
	if (d->s < d->end && *d->s == '?')
		return false; /* nested function scopes (`?1??f@@...') and the like */
	return identifier(d, nm, o);
}

/* Scopes up to '@', innermost first, written outermost first with "::". */
static bool scopes(dm *d, names *nm, char parts[][512], int *np)
{
	while (!eat(d, "@")) {
		if (d->s >= d->end || *np >= 16)
			return false;
		char buf[512];
		out o = { buf, sizeof(buf), 0, false };
		buf[0] = '\0';
		if (!fragment(d, nm, &o) || o.full)
			return false;
		memcpy(parts[(*np)++], buf, o.len + 1);
	}
	return true;
}

/* A fully qualified name (a class or enum in a template argument): name, scopes, '@'. */
static bool qualified(dm *d, names *nm, out *o)
{
	char parts[17][512];
	int np = 0;
	out first = { parts[0], sizeof(parts[0]), 0, false };
	parts[0][0] = '\0';
	if (!fragment(d, nm, &first) || first.full)
		return false;
	np = 1;
	if (!scopes(d, nm, parts, &np))
		return false;
	for (int i = np; i-- > 0;) {
		puts_(o, parts[i]);
		if (i)
			puts_(o, "::");
	}
	return true;
}

/* The special names after "??" (and "??_"). */
static const char *special(dm *d, int *structor)
{
	static const struct { const char *code, *name; } ops[] = {
		{ "_0", "operator/=" }, { "_1", "operator%=" }, { "_2", "operator>>=" }, { "_3", "operator<<=" },
		{ "_4", "operator&=" }, { "_5", "operator|=" }, { "_6", "operator^=" }, { "_7", "`vftable'" },
		{ "_8", "`vbtable'" }, { "_9", "`vcall'" }, { "_B", "`local static guard'" }, { "_D", "`vbase destructor'" },
		{ "_E", "`vector deleting destructor'" }, { "_F", "`default constructor closure'" },
		{ "_G", "`scalar deleting destructor'" }, { "_H", "`vector constructor iterator'" },
		{ "_I", "`vector destructor iterator'" }, { "_J", "`vector vbase constructor iterator'" },
		{ "_K", "`virtual displacement map'" }, { "_L", "`eh vector constructor iterator'" },
		{ "_M", "`eh vector destructor iterator'" }, { "_N", "`eh vector vbase constructor iterator'" },
		{ "_O", "`copy constructor closure'" }, { "_S", "`local vftable'" },
		{ "_T", "`local vftable constructor closure'" }, { "_U", "operator new[]" }, { "_V", "operator delete[]" },
		{ "_X", "`placement delete closure'" }, { "_Y", "`placement delete[] closure'" },
		{ "2", "operator new" }, { "3", "operator delete" }, { "4", "operator=" }, { "5", "operator>>" },
		{ "6", "operator<<" }, { "7", "operator!" }, { "8", "operator==" }, { "9", "operator!=" },
		{ "A", "operator[]" }, { "B", "operator cast" }, { "C", "operator->" }, { "D", "operator*" },
		{ "E", "operator++" }, { "F", "operator--" }, { "G", "operator-" }, { "H", "operator+" },
		{ "I", "operator&" }, { "J", "operator->*" }, { "K", "operator/" }, { "L", "operator%" },
		{ "M", "operator<" }, { "N", "operator<=" }, { "O", "operator>" }, { "P", "operator>=" },
		{ "Q", "operator," }, { "R", "operator()" }, { "S", "operator~" }, { "T", "operator^" },
		{ "U", "operator|" }, { "V", "operator&&" }, { "W", "operator||" }, { "X", "operator*=" },
		{ "Y", "operator+=" }, { "Z", "operator-=" },
	};
	*structor = 0;
	if (eat(d, "0")) {
		*structor = 1;
		return "";
	}
	if (eat(d, "1")) {
		*structor = 2;
		return "";
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (eat(d, ops[i].code))
			return ops[i].name;
	return NULL;
}

bool sv_msvc_demangle_name(const char *mangled, size_t len, char *buf, size_t cap)
{
	if (!cap)
		return false;
	buf[0] = '\0';
	dm d = { mangled, mangled + len, 0 };
	if (!eat(&d, "?") || peek(&d, "?_R") || peek(&d, "?_C") || peek(&d, "?_P"))
		return false; /* not decorated, or RTTI and string literals */
	names nm = { .n = 0 };
	char parts[17][512];
	int np = 1, structor = 0;
	out first = { parts[0], sizeof(parts[0]), 0, false };
	parts[0][0] = '\0';
	if (eat(&d, "?$")) { /* a function template */
		if (!template_name(&d, &nm, &first))
			return false;
	} else if (eat(&d, "?")) {
		const char *op = special(&d, &structor);
		if (!op)
			return false;
		puts_(&first, op); /* (a class template after it is its scope) */
	} else if (!fragment(&d, &nm, &first)) {
		return false;
	}
	if (first.full || !scopes(&d, &nm, parts, &np))
		return false;
	if (structor) { /* a constructor or destructor is named after its class */
		if (np < 2)
			return false;
		size_t n = strlen(parts[1]);
		if (n + 2 > sizeof(parts[0]))
			return false;
		parts[0][0] = '~';
		memcpy(parts[0] + (structor == 2), parts[1], n + 1);
	}
	out o = { buf, cap, 0, false };
	for (int i = np; i-- > 0;) {
		puts_(&o, parts[i]);
		if (i)
			puts_(&o, "::");
	}
	return !o.full;
}
