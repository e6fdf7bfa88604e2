/* The Jinja interpreter (llm_jinja_render) without ../shared: what each construct, filter,
   test and method renders to, as jinja2 in transformers' environment renders it (the texts
   below are jinja2 3.1's; NULL where it raises); whitespace control; the sandbox limits
   (steps, memory, nesting), each shown to be the cause by the same template passing under a
   larger limit; the API's edges; and llm_chat_render running a model's stored template. */
#define _POSIX_C_SOURCE 200809L
#define LLM_IMPLEMENTATION
#include "../llm.h"
#define LLM_CONVERT_IMPLEMENTATION
#include "../tools/llm_convert.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

typedef struct jinja_case { const char *tmpl, *text; } jinja_case;

static const char *const vars_json = "{\"messages\": [{\"role\": \"system\", \"content\": \"Sys\"}, {\"role\": \"user\", \"content\": \"Hi <b> & 'q'\"}, {\"role\": \"assistant\", \"content\": \"Yo\", \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [1, 2.5, \"x\"], \"c\": null, \"d\": true}}}]}], \"x\": 3, \"y\": -7, \"f\": 2.5, \"s\": \"  Hello World  \", \"l\": [3, 1, 2], \"d\": {\"b\": 2, \"a\": 1, \"C\": 3}, \"n\": null, \"t\": true, \"u8\": \"h\\u00e9llo w\\u00f6rld \\u2713 \\ud83d\\ude00\", \"items\": [{\"name\": \"B\", \"v\": 2}, {\"name\": \"a\", \"v\": 1}, {\"name\": \"c\", \"v\": null}], \"nested\": {\"k\": [{\"z\": 1}], \"items\": 5}}";

static const jinja_case jinja_cases[] = {
    { "{{ x }}|{{ f }}|{{ n }}|{{ t }}|{{ l }}|{{ d }}|{{ messages[2].tool_calls }}|{{ 1.0 }}|{{ 1e20 }}|{{ 0.1+0.2 }}|{{ 1/3 }}|{{ 10/2 }}|{{ -7//2 }}|{{ -7%3 }}|{{ 7%-3 }}|{{ 2**10 }}|{{ 2**-1 }}|{{ 1e-5 }}|{{ 123456789012345678 }}",
      "3|2.5|None|True|[3, 1, 2]|{'b': 2, 'a': 1, 'C': 3}|[{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': {'a': 1, 'b': [1, 2.5, 'x'], 'c': None, 'd': True}}}]|1.0|1e+20|0.30000000000000004|0.3333333333333333|5.0|-4|2|-2|1024|0.5|1e-05|123456789012345678" },
    { "{{ \"a\" ~ 1 ~ none ~ true }}|{{ \"ab\" * 3 }}|{{ [1] * 2 }}|{{ [1,2] + [3] }}|{{ (1,2) }}|{{ (1,) }}|{{ () }}|{{ {'a': (1, 'b')} }}|{{ \"it's\" }}|{{ ['it\\'s', \"a\\\"b\"] }}|{{ [\"\\n\\t\\\\\"] }}|{{ u8 }}|{{ [u8] }}",
      "a1NoneTrue|ababab|[1, 1]|[1, 2, 3]|(1, 2)|(1,)|()|{'a': (1, 'b')}|it's|[\"it's\", 'a\"b']|['\\n\\t\\\\']|h\303\251llo w\303\266rld \342\234\223 \360\237\230\200|['h\303\251llo w\303\266rld \342\234\223 \360\237\230\200']" },
    { "{{ s.strip() }}|{{ s.lstrip() }}|{{ s.rstrip() }}|{{ s.strip(' H') }}|{{ s.split() }}|{{ s.split(' ') }}|{{ \"a,b,,c\".split(',') }}|{{ \"a,b,c\".split(',', 1) }}|{{ \"a,b,c\".rsplit(',', 1) }}|{{ s.upper() }}|{{ s.lower() }}|{{ \"hello world\".title() }}|{{ \"hELLO\".capitalize() }}|{{ s.replace('l', 'L') }}|{{ s.replace('l', 'L', 1) }}|{{ s.startswith('  H') }}|{{ s.endswith(('x','  ')) }}|{{ s.find('o') }}|{{ s.count('l') }}|{{ \"-\".join([\"a\",\"b\"]) }}|{{ \"\\n\\nab\\n\".lstrip('\\n') }}|{{ u8[1:4] }}|{{ u8[-2:] }}|{{ u8[::-1] }}|{{ u8|length }}|{{ u8.upper() }}",
      "Hello World|Hello World  |  Hello World|ello World|['Hello', 'World']|['', '', 'Hello', 'World', '', '']|['a', 'b', '', 'c']|['a', 'b,c']|['a,b', 'c']|  HELLO WORLD  |  hello world  |Hello World|Hello|  HeLLo WorLd  |  HeLlo World  |True|True|6|3|a-b|ab\n|\303\251ll| \360\237\230\200|\360\237\230\200 \342\234\223 dlr\303\266w oll\303\251h|15|H\303\211LLO W\303\226RLD \342\234\223 \360\237\230\200" },
    { "{{ l|sort }}|{{ l|sort(reverse=true) }}|{{ items|sort(attribute='name')|map(attribute='name')|list }}|{{ d|dictsort }}|{{ d|dictsort(reverse=true) }}|{{ d|dictsort(by='value') }}|{{ ['b','A','a','B']|unique|list }}|{{ l|min }}|{{ l|max }}|{{ ['b','A']|min }}|{{ l|sum }}|{{ l|first }}|{{ l|last }}|{{ l|reverse|list }}|{{ \"abc\"|reverse }}|{{ d|list }}|{{ \"ab\"|list }}|{{ l|join(', ') }}|{{ items|join(',', attribute='name') }}|{{ l|length }}|{{ d|length }}|{{ l|count }}",
      "[1, 2, 3]|[3, 2, 1]|['a', 'B', 'c']|[('a', 1), ('b', 2), ('C', 3)]|[('C', 3), ('b', 2), ('a', 1)]|[('a', 1), ('b', 2), ('C', 3)]|['b', 'A']|1|3|A|6|3|2|[2, 1, 3]|cba|['b', 'a', 'C']|['a', 'b']|3, 1, 2|B,a,c|3|3|3" },
    { "{{ items|selectattr('v')|list }}|{{ items|rejectattr('v')|list }}|{{ items|selectattr('v', 'none')|list }}|{{ items|selectattr('name', 'equalto', 'a')|list }}|{{ [1,2,3,4]|select('odd')|list }}|{{ [1,2,3,4]|reject('even')|list }}|{{ ['a','B']|map('upper')|list }}|{{ items|map(attribute='v', default=0)|list }}|{{ none|selectattr('x')|list }}",
      "[{'name': 'B', 'v': 2}, {'name': 'a', 'v': 1}]|[{'name': 'c', 'v': None}]|[{'name': 'c', 'v': None}]|[{'name': 'a', 'v': 1}]|[1, 3]|[1, 3]|['A', 'B']|[2, 1, None]|[]" },
    { "{{ x|string }}|{{ l|string }}|{{ \"  a  \"|trim }}|{{ \"xxaxx\"|trim('x') }}|{{ undefined_var|default('D') }}|{{ ''|default('D') }}|{{ ''|default('D', true) }}|{{ none|default('D') }}|{{ \"3\"|int + 1 }}|{{ \"x\"|int }}|{{ \"2.5\"|float }}|{{ 2.567|round(2) }}|{{ 2.5|round }}|{{ 3.5|round }}|{{ -3|abs }}|{{ \"a b  c\"|wordcount }}|{{ \"<a&'\\\">\"|e }}|{{ \"x\"|upper }}|{{ \"hello world\"|title }}|{{ \"Abc\"|lower }}|{{ \"abc\"|capitalize }}|{{ \"a\\nb\\n\\nc\"|indent(2) }}|{{ \"a\\nb\"|indent(2, true) }}|{{ \"a\\n\\nb\\n\"|indent(2, blank=true) }}|{{ \"a\"|center(5) }}|{{ \"aaa\"|replace(\"a\", \"b\") }}",
      "3|[3, 1, 2]|a|a|D||D|None|4|0|2.5|2.57|2.0|4.0|3|3|&lt;a&amp;&#39;&#34;&gt;|X|Hello World|abc|Abc|a\n  b\n\n  c|  a\n  b|a\n  \n  b\n  |  a  |bbb" },
    { "{{ d|tojson }}|{{ d|tojson(indent=2) }}|{{ messages[2]|tojson }}|{{ u8|tojson }}|{{ u8|tojson(ensure_ascii=True) }}|{{ d|tojson(sort_keys=True) }}|{{ l|tojson(separators=(',', ':')) }}|{{ [1.0, 2.50, -0.0, 1e100]|tojson }}|{{ \"\\u0001\\u007f\"|tojson }}|{{ {}|tojson }}|{{ []|tojson(indent=4) }}|{{ {\"a\": [], \"b\": {}}|tojson(indent=4) }}",
      "{\"b\": 2, \"a\": 1, \"C\": 3}|{\n  \"b\": 2,\n  \"a\": 1,\n  \"C\": 3\n}|{\"role\": \"assistant\", \"content\": \"Yo\", \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [1, 2.5, \"x\"], \"c\": null, \"d\": true}}}]}|\"h\303\251llo w\303\266rld \342\234\223 \360\237\230\200\"|\"h\\u00e9llo w\\u00f6rld \\u2713 \\ud83d\\ude00\"|{\"C\": 3, \"a\": 1, \"b\": 2}|[3,1,2]|[1.0, 2.5, -0.0, 1e+100]|\"\\u0001\177\"|{}|[]|{\n    \"a\": [],\n    \"b\": {}\n}" },
    /* Markup: what |safe and |escape give stays Markup through +, *, slicing, the case and strip
       methods, trim, string; a str added to it is escaped (the HTML of a tool's JSON) */
    { "{{ \"Use '\"|safe + messages[1].content + \"'\"|safe }}|{{ messages[1].content + ('<'|e) }}|{{ ('a<'|safe)[1:] + '>' }}|{{ ('a<'|safe)[0] + '>' }}|{{ [('<'|safe)] }}|{{ ('<'|safe) ~ '>' }}|{{ ('<b>'|safe).upper() + '&' }}|{{ ('a'|safe) * 2 + '<' }}|{{ ('a'|safe|trim) + '<' }}|{{ ('a'|safe|replace('a','b')) + '<' }}|{{ '<'|e|e }}|{{ '<'|safe|forceescape }}|{{ ('<'|safe)|string + '<' }}|{{ (x|safe) + '&' }}|{{ ('<'|e) + ('>'|e) }}|{{ (zz|safe) is defined }}",
      "Use 'Hi &lt;b&gt; &amp; &#39;q&#39;'|Hi &lt;b&gt; &amp; &#39;q&#39;&lt;|<&gt;|a&gt;|[Markup('<')]|<>|<B>&amp;|aa&lt;|a&lt;|b<|&lt;|&lt;|<&lt;|3&amp;|&lt;&gt;|True" },
    /* map and select of a false value (a null tool_calls) give nothing, without iterating */
    { "{{ n|map(attribute='x')|list }}|{{ 0|map('upper')|list }}|{{ ''|select|list }}|{{ n|rejectattr('x')|list }}",
      "[]|[]|[]|[]" },
    /* ensure_ascii escapes DEL too */
    { "{{ \"\\u007f\\u00e9\"|tojson(ensure_ascii=True) }}|{{ \"\\u007f\"|tojson }}",
      "\"\\u007f\\u00e9\"|\"\177\"" },
    /* the line breaks of str.splitlines, which indent splits at too */
    { "{{ \"a\\r\\nb\\rc\\u0085d\\u000be\\u2028f\\u001cg\"|indent(2) }}|{{ \"a\\r\\nb\\u2029c\\fd\".splitlines() }}|{{ \"a\\r\\nb\\n\".splitlines(true) }}|{{ \"\"|indent(first=true) }}|{{ \"\\n\"|indent(first=true) }}|{{ {\"a\": \"p\\u2028q\"}|tojson(indent=2)|indent(4) }}",
      "a\n  b\n  c\n  d\n  e\n  f\n  g|['a', 'b', 'c', 'd']|['a\\r\\n', 'b\\n']|    |    \n|{\n      \"a\": \"p\n    q\"\n    }" },
    /* repr escapes what str.isprintable says is not printable */
    { "{{ [\"\\u200d\\u2028\\u00a0\\u00ad\\u3000\\ufeff\\ue000 \\u00e9\\u0378\\U000e0001\\u0085\"] }}|{{ {\"k\\u200b\": \"v\"} }}|{{ messages[1]|string }}",
      "['\\u200d\\u2028\\xa0\\xad\\u3000\\ufeff\\ue000 \303\251\\u0378\\U000e0001\\x85']|{'k\\u200b': 'v'}|{'role': 'user', 'content': \"Hi <b> & 'q'\"}" },
    /* integers beyond 64 bits keep their digits (19-digit ones are ints) */
    { "{% set b = 12345678901234567890 %}{{ b }}|{{ b|tojson }}|{{ [b, -98765432109876543210] }}|{{ b is integer }}|{{ b == 12345678901234567890 }}|{{ b > x }}|{{ (-b)|default(1) if false else b|abs }}|{{ b|int }}|{{ b|float }}|{{ {b: 1}|tojson }}|{{ 9223372036854775807 }}|{{ 1000000000000000000 }}|{{ -9223372036854775808 }}|{{ b|string|length }}",
      "12345678901234567890|12345678901234567890|[12345678901234567890, -98765432109876543210]|True|True|True|12345678901234567890|12345678901234567890|1.2345678901234567e+19|{\"12345678901234567890\": 1}|9223372036854775807|1000000000000000000|-9223372036854775808|20" },
    /* loop.changed, recursive loops (depth, the loop's if filter), with, joiner, cycler; printf-style
       % formatting (flags, width, precision, %(key)s, Markup), the filters batch, slice, groupby,
       truncate, xmlattr, urlencode, filesizeformat; hex, octal and binary literals; int's base
       and Python's int()/float() texts; round to tens; str's ljust, zfill, center, partition,
       rindex and is* by Unicode category; the filter and test tests (NULL: jinja2 raises) */
    { "{% for x in [1,1,2,3,3] %}{% if loop.changed(x) %}{{ x }}{% endif %}{% endfor %}|{% for m in items %}{{ loop.changed(m.v is none) }}{% endfor %}|{% for x in [[1,[2]],3] recursive %}{% if x is iterable %}[{{ loop(x) }}]{% else %}{{ x }}@{{ loop.depth }}{{ loop.depth0 }}{% endif %}{% endfor %}|{% for x in [1,2,4] if x != 2 recursive %}{{ x }}{% if x == 4 %}({{ loop([5, 2]) }}){% endif %}{% endfor %}",
      "123|TrueFalseTrue|[1@21[2@32]]3@10|14(5)" },
    { "{% set a = 5 %}{% with a = a + 1, b = a %}{{ a }},{{ b }}{% set c = 1 %}{% endwith %}{{ a }}{{ c is defined }}|{% set j = joiner('; ') %}{% for m in items %}{{ j() }}{{ m.name }}{% endfor %}|{% set cy = cycler('a', 'b') %}{{ cy.next() }}{{ cy.next() }}{{ cy.next() }}{{ cy.current }}{{ cy.reset() }}{{ cy.current }}",
      "6,55False|B; a; c|ababNonea" },
    { "{{ '%-5s|%5s|%.2s|%x|%#o|%e|%g|%c|%%|%+d|%05.1f' % ('a', '\303\251', 'xyz', 255, 8, 1.5, 0.0001, 233, -4, -2.25) }}|{{ '%(name)s=%(v)03d' % items[0] }}|{{ '%s' % (l,) }}|{{ '%s' % d }}|{{ '%*d' % (4, x) }}|{{ '%s/%s'|format('a', 2) }}|{{ '%(k)s'|format(k=1) }}|{{ '%05f' % (1e400) }}|{{ ('<%s>'|safe) % '<b>' }}",
      "a    |    \303\251|xy|ff|0o10|1.500000e+00|0.0001|\303\251|%|-4|-02.2|B=002|[3, 1, 2]|{'b': 2, 'a': 1, 'C': 3}|   3|a/2|1|00inf|<&lt;b&gt;>" },
    { "{{ l|batch(2)|list }}|{{ l|batch(2, 0)|list }}|{{ [1,2,3,4,5,6,7]|slice(3)|list }}|{{ l|slice(2, 'f')|list }}|{% for g in messages|groupby('role') %}{{ g.grouper }}{{ g.list|length }};{% endfor %}|{% for k, v in items|groupby('name') %}{{ k }}{% endfor %}|{{ [{'a': 2}, {}, {'a': 1}]|groupby('a', default=0)|map(attribute='grouper')|list }}|{{ 'Hello world, this is a long one'|truncate(20) }}|{{ 'Hello world'|truncate(9, true, '..', 0) }}|{{ {'class': 'a b', 'id': none, 'x': '<>'}|xmlattr }}|{{ 'a b&c/\303\251'|urlencode }}|{{ {'q': 'x y/z', 'n': 2}|urlencode }}|{{ 123456789|filesizeformat }}|{{ 2048|filesizeformat(true) }}|{{ 1|filesizeformat }}",
      "[[3, 1], [2]]|[[3, 1], [2, 0]]|[[1, 2, 3], [4, 5], [6, 7]]|[[3, 1], [2, 'f']]|assistant1;system1;user1;|aBc|[0, 1, 2]|Hello world,...|Hello w..| class=\"a b\" x=\"&lt;&gt;\"|a%20b%26c/%C3%A9|q=x+y%2Fz&n=2|123.5 MB|2.0 KiB|1 Byte" },
    { "{{ 0x1F }}|{{ 0o17 }}|{{ 0b1_01 }}|{{ '0b11'|int(0, 2) }}|{{ '12'|int(base=8) }}|{{ ' 7 '|int }}|{{ '1_000'|int }}|{{ ' 2.5 '|float }}|{{ 'nan'|int(7) }}|{{ 1234.5678|round(-2) }}|{{ 1250.0|round(-2) }}|{{ 1350.0|round(-2) }}|{{ 1234.5|round(-2, 'ceil') }}",
      "31|15|5|3|10|7|1000|2.5|7|1200.0|1200.0|1400.0|1300.0" },
    { "{{ 'ab'.ljust(5, '*') }}|{{ '-42'.zfill(5) }}|{{ 'ab'.center(6, '-') }}|{{ 'a=b=c'.partition('=') }}|{{ 'a=b=c'.rpartition('=') }}|{{ 'abcb'.rindex('b') }}|{{ '\303\251t\303\251'.isalpha() }}|{{ '\303\211T\303\211'.isupper() }}|{{ '\331\241\331\242'.isdecimal() }}|{{ '\302\240\343\200\200'.isspace() }}|{{ 'upper' is filter }}|{{ 'odd' is test }}|{{ 'x' is filter }}",
      "ab***|-0042|--ab--|('a', '=', 'b=c')|('a=b', '=', 'c')|3|True|True|True|True|True|True|False" },
    { "{% for x in [1] %}{{ loop([2]) }}{% endfor %}",
      NULL },
    { "{{ '%s %s' % (1,) }}",
      NULL },
    { "{{ '%s' % (1, 2) }}",
      NULL },
    { "{{ 'abc'|truncate(2) }}",
      NULL },
    { "{{ cycler() }}",
      NULL },
    { "{{ 'a'.ljust(3, 'ab') }}",
      NULL },
    /* calls with *items and **mapping (the Jamba template calls macros from a list so) */
    { "{% macro f(a, b=2) %}[{{ a }}{{ b }}{{ varargs }}{{ kwargs }}]{% endmacro %}{% set calls = [f] %}{{ calls[0](*[1, 3, 4]) }}{{ f(0, *[5]) }}{{ f(1, **{'b': 9, 'c': 1}) }}|{{ '%s-%s'|format(*['a', 'b']) }}|{{ dict(a=1, **{'b': 2}) }}",
      "[13(4,){}][05(){}][19(){'c': 1}]|a-b|{'a': 1, 'b': 2}" },
    { "{{ dict(**{}, b=1) }}",
      NULL },
    /* trim_blocks passes over {% raw %} */
    { "a{% raw %}\n{{ x }}{% endraw %}\nb{% raw -%}\n  c{% endraw %}",
      "a\n{{ x }}bc" },
    { "{{ x is defined }}|{{ zz is defined }}|{{ zz is undefined }}|{{ n is none }}|{{ s is string }}|{{ x is number }}|{{ f is float }}|{{ x is integer }}|{{ d is mapping }}|{{ l is iterable }}|{{ s is iterable }}|{{ l is sequence }}|{{ t is boolean }}|{{ t is true }}|{{ x is false }}|{{ x is odd }}|{{ x is even }}|{{ 9 is divisibleby 3 }}|{{ 9 is divisibleby(4) }}|{{ n is sameas none }}|{{ 2 is in l }}|{{ x is eq 3 }}|{{ x is ne 3 }}|{{ x is lt 4 }}|{{ \"ab\" is lower }}|{{ x is not none }}|{{ d.items is callable }}",
      "True|False|True|True|True|True|True|True|True|True|True|True|True|True|False|True|False|True|False|True|True|True|False|True|True|True|True" },
    { "{{ 1 < 2 < 3 }}|{{ 3 > 2 > 2 }}|{{ 1 == 1.0 }}|{{ true == 1 }}|{{ \"a\" < \"b\" }}|{{ [1,2] < [1,3] }}|{{ 'a' in 'cat' }}|{{ 'z' not in 'cat' }}|{{ 'a' in d }}|{{ 3 in l }}|{{ not x }}|{{ not none }}|{{ x and 0 }}|{{ 0 or 'v' }}|{{ none or [] }}|{{ 'yes' if x else 'no' }}|{{ 'yes' if n }}|{{ -x }}|{{ +f }}|{{ - -x }}|{{ x + f }}|{{ d == {'b':2,'a':1,'C':3} }}|{{ l != [3,1,2] }}",
      "True|False|True|True|True|True|True|True|True|True|False|True|0|v|[]|yes||-3|2.5|3|5.5|True|False" },
    { "{% for k, v in d.items() %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ k }}={{ v }}{{ loop.cycle('a','b') }};{% endfor %}\n{% for i in l if i > 1 %}{{ loop.index }}/{{ loop.length }}:{{ i }}{% if loop.previtem is defined %}p{{ loop.previtem }}{% endif %}{% if loop.nextitem is defined %}n{{ loop.nextitem }}{% endif %},{% else %}EMPTY{% endfor %}\n{% for i in [] %}x{% else %}EMPTY{% endfor %}|{% for c in \"ab\" %}{{ c }}{% endfor %}|{% for k in d %}{{ k }}{% endfor %}|{% for a, b in [(1, 2), [3, 4]] %}{{ a }}{{ b }}{% endfor %}|{% for i in range(3) %}{{ i }}{% endfor %}{% for i in range(1, 10, 3) %}{{ i }}{% endfor %}{% for i in range(5, 0, -2) %}{{ i }}{% endfor %}\n{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 5 %}{% break %}{% endif %}{{ i }}{% endfor %}\n{% for row in [[1,2],[3]] %}{% for c in row %}{{ loop.index }}{{ c }}{% endfor %}{{ loop.index }};{% endfor %}",
      "1032TrueFalse3b=2a;2121FalseFalse3a=1b;3210FalseTrue3C=3a;1/2:3n2,2/2:2p3,EMPTY|ab|baC|1234|012147531013411221;132;" },
    { "{% set a = 1 %}{% for i in l %}{% set a = i %}{% endfor %}{{ a }}|{% if true %}{% set b = 2 %}{% endif %}{{ b }}|{% set ns = namespace(v=0, w='x') %}{% for i in l %}{% set ns.v = ns.v + i %}{% endfor %}{{ ns.v }}{{ ns.w }}|{% set p, q = 1, 2 %}{{ p }}{{ q }}|{% set blk %}  inner {{ x }}  {% endset %}[{{ blk }}]|{% set blk2 | trim | upper %}  inner  {% endset %}[{{ blk2 }}]|{% filter upper %}abc{{ x }}{% endfilter %}|{% set lst = l + [9] %}{{ lst }}",
      "1|2|6x|12|[  inner 3  ]|[INNER]|ABC3|[3, 1, 2, 9]" },
    { "{% macro m(a, b=2, c='z') %}[{{ a }}{{ b }}{{ c }}{{ varargs }}{{ kwargs }}]{% endmacro %}{{ m(1) }}{{ m(1, 3) }}{{ m(1, c='q') }}{{ m(1,2,3,4) }}{{ m(a=5) }}\n{% macro w() %}<{{ caller() }}>{% endmacro %}{% call w() %}body{{ x }}{% endcall %}\n{% macro w2(v) %}<{{ caller(v * 2) }}>{% endmacro %}{% call(z) w2(4) %}got {{ z }}{% endcall %}\n{% macro g() %}{{ x }}{{ later }}{% endmacro %}{% set later = 'L' %}{{ g() }}\n{% macro rec(n) %}{% if n > 0 %}{{ n }}{{ rec(n - 1) }}{% endif %}{% endmacro %}{{ rec(3) }}",
      "[12z(){}][13z(){}][12q(){}][123(4,){}][52z(){}]\n<body3><got 8>3L\n321" },
    { "a\n  {% if true %}\n  b\n  {% endif %}\n  {#- comment #}\nc {# c2 #}\n   {# c3 #}\nd {{- ' e ' -}} f\n{%+ if true %}g{% endif %}\n   {%- if true -%}   h   {%- endif -%}\ni {%- if true +%}\nj{% endif %}\nk{% raw %}{{ not }}{% endraw %}\nl",
      "a\n  b\nc d e f\nghi\njk{{ not }}l" },
    { "{{ undefined.attr }}",
      NULL },
    { "{{ d.zz.yy }}",
      NULL },
    { "[{{ d.zz }}]",
      "[]" },
    { "{% if x %}{{ x|nofilter }}{% endif %}",
      NULL },
    { "{% if false %}{{ x|nofilter }}{% endif %}ok",
      "ok" },
    { "{{ x|nofilter }}",
      NULL },
    { "{{ l.append(1) }}",
      NULL },
    { "{{ 'a' + 1 }}",
      NULL },
    { "{{ 1 + 'a' }}",
      NULL },
    { "{{ n + 1 }}",
      NULL },
    { "{{ zz + 1 }}",
      NULL },
    { "{{ zz ~ 'a' }}",
      "a" },
    { "{{ zz|length }}",
      "0" },
    { "{% for i in n %}{% endfor %}",
      NULL },
    { "{% for i in zz %}{% endfor %}ok",
      "ok" },
    { "{{ raise_exception('boom') }}",
      NULL },
    { "[{{ l[10] }}]",
      "[]" },
    { "{{ l[10].x }}",
      NULL },
    { "{{ 'abc'.nomethod() }}",
      NULL },
    { "{{ d.pop('a') }}",
      NULL },
    { "{{ x() }}",
      NULL },
    { "{{ 1 / 0 }}",
      NULL },
    { "{% do x %}",
      NULL },
    { "{% if x %}",
      NULL },
    { "{{ none|tojson }}",
      "null" },
    { "{{ zz|tojson }}",
      NULL },
    { "{{ messages|selectattr('role', 'equalto', 'user')|list|length }}",
      "1" },
    { "{{ messages|map(attribute='role')|join(',') }}",
      "system,user,assistant" },
    { "{% for m in messages %}{% set xx = m.role %}{% endfor %}[{{ xx }}]",
      "[]" },
    { "{{ 'x' in none }}",
      NULL },
    { "[{{ loop }}]",
      "[]" },
    { "{{\n  x\n  +\n  1\n}}",
      "4" },
    { "a\n{{- 'b' -}}\nc",
      "abc" },
    { "{{ '\\u3000abc\\u00a0 '.strip() }}|",
      "abc|" },
    { "{{ 'abc'|first }}",
      "a" },
    { "{{ d|items|list }}",
      "[('b', 2), ('a', 1), ('C', 3)]" },
    { "{{ {0: 'a'}[0] }}{{ {1: 2, 0: 3}|dictsort }}",
      "a[(0, 3), (1, 2)]" },
    { "{{ 10 // 3 }} {{ 10.0 // 3 }} {{ -10 % 3 }} {{ 3 * 'ab' }}",
      "3 3.0 2 ababab" },
    { "{{ [1, [2, 'x']]|tojson(indent=2) }}",
      "[\n  1,\n  [\n    2,\n    \"x\"\n  ]\n]" },
    { "{{ {'a': none, 'b': true}|tojson }}",
      "{\"a\": null, \"b\": true}" },
    { "{{ 1.5e3 }} {{ 1_000 }}",
      "1500.0 1000" },
    { "{{ 'a' < 1 }}",
      NULL },
    { "{{ 'a' == 1 }}",
      "False" },
    { "{{ none == none }} {{ zz == none }} {{ zz is none }}",
      "True False False" },
    { "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}",
      NULL },
    { "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b=2) }}",
      NULL },
    { "{% macro m(a) %}{{ varargs }}{% endmacro %}{{ m(1, 2) }}",
      "(2,)" },
    { "{{ '%s-%d'|format('a', 3) }}",
      "a-3" },
    { "{{ '{}-{}'.format('a', 3) }}",
      "a-3" },
    { "{% set x = 5 %}{{ x }}",
      "5" },
    { "{% for x in [1] %}{{ x }}{% endfor %}{{ x }}",
      "13" },
    { "{{ messages[0]['role'] if messages else '' }}",
      "system" },
    { "{{ messages[-1].role }}",
      "assistant" },
    { "{{ messages[1:]|length }}",
      "2" },
    { "{{ (messages|last).content }}",
      "Yo" },
    { "{% set t = tools if tools is defined else [] %}{{ t|length }}",
      "0" },
    { "{{ l|map('string')|join('-') }}",
      "3-1-2" },
    { "{{ [3,1]|sort|first }}",
      "1" },
    { "{{ 'a\tb'.split() }}",
      "['a', 'b']" },
    { "{{ ' a  b '.split(' ') }}",
      "['', 'a', '', 'b', '']" },
    { "{{ 'abc'.split('') }}",
      NULL },
    { "{{ 'x'.join(['a', 1]) }}",
      NULL },
    { "{{ l|join }}",
      "312" },
    { "{{ d.items()|list }}",
      "[('b', 2), ('a', 1), ('C', 3)]" },
    { "{% for k in d.keys() %}{{ k }}{% endfor %}",
      "baC" },
    { "{{ d.keys()|list }}",
      "['b', 'a', 'C']" },
    { "{{ 'b' in d.keys() }}",
      "True" },
    { "{{ s[1:3] }}{{ s[:] }}",
      " H  Hello World  " },
    { "{{ x.y }}",
      "" },
    { "[{{ n.y }}]",
      "[]" },
    { "{{ n.y.z }}",
      NULL },
    { "{{ t.y }}",
      "" },
    { "{% filter trim %}  a  {% endfilter %}",
      "a" },
    { "{{ 'A'|lower is lower }}",
      "True" },
    { "{{ x is string }}",
      "False" },
    { "{{ range(3)|list }}",
      "[0, 1, 2]" },
    { "{{ namespace(a=1).a }}",
      "1" },
    { "{% set ns = namespace(a=1) %}{{ ns }}",
      "<Namespace {'a': 1}>" },
    { "{{ dict(a=1, b=2) }}",
      "{'a': 1, 'b': 2}" },
    { "{{ strftime_now('%A %d %B %Y %H:%M %j %a %b %y %m') }}",
      "Friday 26 July 2024 00:00 208 Fri Jul 24 07" },
    { "{% set a = [1] %}{% set a = a + [2] %}{{ a }}",
      "[1, 2]" },
    { "{{ [] is iterable }} {{ {} is sequence }} {{ 'a' is sequence }} {{ 1 is iterable }}",
      "True True True False" },
    { "{{ 'abc' is string }} {{ none is mapping }}",
      "True False" },
    { "{% if messages[0].role == 'system' %}{{ messages[0].content|trim }}{% endif %}",
      "Sys" },
    { "{{ messages[5] is defined }}",
      "False" },
    { "{{ x|default }}",
      "3" },
    { "{{ zz|default }}",
      "" },
    { "{{ [] or 'e' }}",
      "e" },
    { "{{ 0.0 or 'z' }}",
      "z" },
    { "{{ '{{ not }}' }}",
      "{{ not }}" },
    { "{# {{ x }} #}ok",
      "ok" },
    { "{%- if true -%}\n\n  a\n\n{%- endif -%}",
      "a" },
    { "  {% if true %}x{% endif %}  \n  {%- if true %}y{% endif %}",
      "xy" },
    { "{% for i in l %}\n  {{ i }}\n{% endfor %}\n",
      "  3\n  1\n  2\n" },
    { "{%- for i in l -%}\n  {{ i }}\n{%- endfor -%}",
      "312" },
    { "\n\n{% if true %}\n\n{% endif %}\n\n",
      "\n\n\n" },
    { "x\n",
      "x" },
    { "{{ x }}\n{{ x }}\n",
      "3\n3" },
    { "{% set x %}\nabc\n{% endset %}[{{ x }}]",
      "[abc\n]" },
    { "{{ 'a' 'b' }}",
      "ab" },
    { "{{ ('a' ~ 'b')|upper }}",
      "AB" },
    { "{{ -x|abs }}",
      "3" },
    { "{{ not x is none }}",
      "True" },
    { "{{ x > 2 and x < 4 }}",
      "True" },
    { "{{ l|selectattr('x')|list }}",
      "[]" },
    { "{{ true + 1 }}",
      "2" },
    { "{{ 3 / 2 }} {{ 4 / 2 }}",
      "1.5 2.0" },
    { "{{ 2 ** 0.5 }}",
      "1.4142135623730951" },
    { "{{ 7 // -2 }}",
      "-4" },
    { "{{ 1e16 }} {{ 1.0e15 }} {{ 123.456 }} {{ 0.000123 }} {{ 100.0 }} {{ -0.5 }} {{ 3.0 * 2 }}",
      "1e+16 1000000000000000.0 123.456 0.000123 100.0 -0.5 6.0" },
    { "{{ d.copy() }}",
      "{'b': 2, 'a': 1, 'C': 3}" },
    { "{{ [1, 2].index(2) }}",
      "1" },
    { "{{ 'hello'.index('l') }}",
      "2" },
    { "{{ messages|selectattr('tool_calls', 'defined')|list|length }}",
      "1" },
    { "{{ messages|rejectattr('role', 'in', ['user', 'system'])|map(attribute='role')|list }}",
      "['assistant']" },
    { "{{ l|unique|list }}",
      "[3, 1, 2]" },
    { "{{ 'abc'|replace('', '-') }}",
      "-a-b-c-" },
    { "{{ 'aaa'.replace('a', 'b', 2) }}",
      "bba" },
    { "{% for a, b in d|dictsort %}{{ a }}{{ b }}{% endfor %}",
      "a1b2C3" },
    { "{% for a in d|dictsort %}{{ a[0] }}{% endfor %}",
      "abC" },
    { "{{ (d|dictsort)[0] }}",
      "('a', 1)" },
    { "{% for i, j in [[1]] %}{% endfor %}",
      NULL },
    { "{% for i, j in ['ab'] %}{{ i }}{{ j }}{% endfor %}",
      "ab" },
    { "{{ \"it's\"|tojson }}",
      "\"it's\"" },
    { "{{ '<>&'|tojson }}",
      "\"<>&\"" },
    { "{{ {'k': '<&>'}|tojson }}",
      "{\"k\": \"<&>\"}" },
    { "{{ x|float }}",
      "3.0" },
    { "{{ '3.0'|int }}",
      "3" },
    { "{{ 3.7|int }}",
      "3" },
    { "{{ u8.title() }}",
      "H\303\251llo W\303\266rld \342\234\223 \360\237\230\200" },
    { "{{ 'hello world'.capitalize() }}",
      "Hello world" },
    { "{{ 'they\\'re 3rd'.title() }}",
      "They'Re 3Rd" },
    { "{{ 'they\\'re'|title }}",
      "They're" },
    { "{{ d.items() }}{{ d.keys() }}",
      "dict_items([('b', 2), ('a', 1), ('C', 3)])dict_keys(['b', 'a', 'C'])" },
    { "{% set ns = namespace(a=[]) %}{% set ns.a = ns.a + [1] %}{{ ns.a }}",
      "[1]" },
    { "{{ messages[2].tool_calls[0].function.arguments|tojson(indent=2, sort_keys=true) }}",
      "{\n  \"a\": 1,\n  \"b\": [\n    1,\n    2.5,\n    \"x\"\n  ],\n  \"c\": null,\n  \"d\": true\n}" },
    { "{%- for m in messages -%}\n  {%- if m.role == 'user' -%}\n    {{ '<u>' + m.content }}\n  {%- endif -%}\n{%- endfor -%}",
      "<u>Hi <b> & 'q'" },
    { "{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%B %-d, %Y') }}",
      "26 Jul 2024|July 26, 2024" },
    { "{{ 'a' is in ['a'] }}",
      "True" },
    { "{% if zz is not defined or zz is none %}u{% endif %}",
      "u" },
    { "{%- set b = {0: 0, 512: 128, 1024: 256} -%}{%- for k, v in b | dictsort -%}{{ k }}:{{ v }},{%- endfor -%}{{ b[512] }}{{ b|tojson }}",
      "0:0,512:128,1024:256,128{\"0\": 0, \"512\": 128, \"1024\": 256}" },
    { "{%- macro py(t) -%}{%- if t == 'string' -%}str{%- elif t in ('number', 'integer') -%}int{%- else -%}Any{%- endif -%}{%- endmacro -%}{{ py('number') }}{{ py('x') }}",
      "intAny" },
    { "{% for tc in messages[2].tool_calls %}{% if tc.function is defined %}{% set tc = tc.function %}{% endif %}{{ tc.name }}{% endfor %}",
      "f" },
    { "{% for k, v in messages[2].tool_calls[0].function.arguments | items %}{{ k }}={{ v if v is string else v | string }};{% endfor %}",
      "a=1;b=[1, 2.5, 'x'];c=None;d=True;" },
    { "{% for m in messages %}{% for n in messages[loop.index0 + 1:] %}{{ n.role }}{% endfor %}|{% endfor %}",
      "userassistant|assistant||" },
    { "{% set ns = namespace(v=[]) %}{% for m in messages %}{% set ns.v = ns.v + [m.role] %}{% endfor %}{{ ns.v }}{{ 'user' not in ns.v }}",
      "['system', 'user', 'assistant']False" },
    { "{{ messages[2].get('tool_calls')|length }}{{ messages[0].get('tool_calls') }}{% set out = messages[2].tool_calls[0].function|tojson %}{{ out[:-1] }}",
      "1None{\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [1, 2.5, \"x\"], \"c\": null, \"d\": true}" },
    { "{{ \"line \\\nnext\" }}",
      "line next" },
    { "{{ 'a\\\nb' }}",
      "ab" },
    { "{%- for m in messages -%}\n    {%- if loop.first -%}F{%- endif -%}\n    {{ m.role }}\n{% endfor %}",
      "Fsystem\nuser\nassistant\n" },
    { "  {{ x }}  \n  {% if true %}  y  {% endif %}  \n",
      "  3  \n  y    " },
    { "{% raw -%}   a {{ b }}   {%- endraw %}|",
      "a {{ b }}|" },
    { "{%- raw %} x {% endraw -%}  |",
      " x |" },
    { "{% if x %}\n{% endif %}\n\n{%- if x -%}\n{%- endif -%}",
      "" },
    { "{#- c -#}\n  a\n  {#+ c +#}\n  b",
      "a\n  \n  b" },
    { "{% set x = [1, 2, 3] %}{{ x[1:] + x[:1] }}{{ x|select('gt', 1)|list }}{{ x|map('string')|map('upper')|list }}",
      "[2, 3, 1][2, 3]['1', '2', '3']" },
    { "{{ (messages|selectattr('role', 'eq', 'user')|first).content }}",
      "Hi <b> & 'q'" },
    { "{{ messages|selectattr('role', '==', 'user')|list|length }}",
      "1" },
    { "{% for m in messages|reverse %}{{ m.role[0] }}{% endfor %}",
      "aus" },
    { "{{ messages|map(attribute='content')|map('length')|list }}",
      "[3, 12, 2]" },
    { "{{ tools is not defined or tools is none }}",
      "True" },
    { "{{ d.b is defined }}{{ d['zz'] is defined }}{{ d.zz is defined }}",
      "TrueFalseFalse" },
    { "{% if messages[0]['role'] == 'system' %}{% set sys = messages[0]['content'] %}{% set loop_messages = messages[1:] %}{% else %}{% set loop_messages = messages %}{% endif %}{{ sys }}{{ loop_messages|length }}",
      "Sys2" },
    { "{{ '%s'|format(d) }}",
      "{'b': 2, 'a': 1, 'C': 3}" },
    { "{{ [d]|tojson(indent=2) }}",
      "[\n  {\n    \"b\": 2,\n    \"a\": 1,\n    \"C\": 3\n  }\n]" },
    { "{{ {'a': {'b': [1, {'c': []}]}}|tojson(indent=2) }}",
      "{\n  \"a\": {\n    \"b\": [\n      1,\n      {\n        \"c\": []\n      }\n    ]\n  }\n}" },
    { "{{ 'x'|tojson(indent=2) }}",
      "\"x\"" },
    { "{{ {'a':1}|tojson(separators=(',', ':')) }}",
      "{\"a\":1}" },
    { "{{ [1,2]|tojson(indent='\t') }}",
      "[\n\t1,\n\t2\n]" },
    { "{{ messages[1].content|replace('<', '&lt;') }}",
      "Hi &lt;b> & 'q'" },
    { "{{ messages[1].content.split(' ')|join('_') }}",
      "Hi_<b>_&_'q'" },
    { "{{ messages[1].content[:5]|trim }}",
      "Hi <b" },
    { "{{ '\\n'.join(['a', 'b']) }}",
      "a\nb" },
    { "{{ 'x' if x > 2 else 'y' if x > 1 else 'z' }}",
      "x" },
    { "{{ [x, f, n, t, 'a', [1], {'k': 'v'}]|join(', ') }}",
      "3, 2.5, None, True, a, [1], {'k': 'v'}" },
    { "{{ 1 if x is defined }}",
      "1" },
    { "{%- for i in range(3) -%}{{ i }}{{ ',' if not loop.last }}{%- endfor -%}",
      "0,1,2" },
    { "{{ loop_var is defined }}{% for i in [1] %}{{ loop.length }}{{ loop.revindex }}{% endfor %}",
      "False11" },
    { "{{ messages[-1]['role'] == 'assistant' and messages[-1].tool_calls is defined }}",
      "True" },
    { "{% set a, b = 'xy' %}{{ a }}{{ b }}",
      "xy" },
    { "{{ 'abc' ~ 1.0 ~ [1] }}",
      "abc1.0[1]" },
    { "{{ 3 ~ '' }}",
      "3" },
    { "{{ 0.1 * 3 }}",
      "0.30000000000000004" },
    { "{{ 1.1 + 2.2 }}",
      "3.3000000000000003" },
    { "{{ 2.0 ** 3 }}",
      "8.0" },
    { "{{ 7 / 7 }}",
      "1.0" },
    { "{{ 1e300 * 1e10 }}",
      "inf" },
    { "{{ -1.5|round }}{{ 0.5|round }}{{ 1.5|round }}{{ 2.675|round(2) }}",
      "-2.00.02.02.67" },
    { "{{ 10|float }}",
      "10.0" },
    { "{{ '  '.isspace() }}",
      "True" },
    { "{{ 'ab12'.isalnum() }}",
      "True" },
    { "{{ x|string|length }}",
      "1" },
    { "{{ [1, [2, [3]]]|string }}",
      "[1, [2, [3]]]" },
    { "{{ 'a\"b\\'c'|string }}{{ ['a\"b\\'c'] }}",
      "a\"b'c['a\"b\\'c']" },
    { "{% macro m() %}{{ caller() if caller is defined else 'nocaller' }}{% endmacro %}{{ m() }}",
      "nocaller" },
    { "{% macro m(x) -%}\n  [{{ x }}]\n{%- endmacro %}\n{{ m(1) }}\n{{ m(2) -}}\n!",
      "[1]\n[2]!" },
    { "{%- set t %}\n  a\n  {%- if true %} b {% endif %}\n{% endset -%}[{{ t }}]",
      "[  a b ]" },
    { "{% for i in [1,2] %}{% if i == 2 %}[{{ xx }}]{% endif %}{% set xx = i %}{% endfor %}",
      "[]" },
    { "{% set xx = 0 %}{% for i in [1,2] %}[{{ xx }}]{% set xx = i %}{% endfor %}{{ xx }}",
      "[0][0]0" },
    { "{% set xx = 1 %}{% macro m() %}{{ xx }}{% endmacro %}{% set xx = 2 %}{{ m() }}",
      "2" },
    { "a\015\n{% if true %}\015\nb\015c{{ 'd\015\ne' }}\015\n{% endif %}\015\n",
      "a\nb\ncd\ne\n" },
    { "{% if []|selectattr('a') %}T{% else %}F{% endif %}",
      "T" },
    { "{{ [1,2]|select|length }}",
      NULL },
    { "[{{ ([1]|select)[0] }}]",
      "[]" },
    { "{{ ({})|wordcount }}{{ 'a b-c'|wordcount }}",
      "03" },
    { "{{ 3|round }}{{ 2.5|round }}{{ true|round }}",
      "32.01" },
    { "{{ zz|int }}",
      NULL },
    { "{{ zz is iterable }}",
      "True" },
    { "{{ [1, 2]|reverse|list }}{{ [1]|map('string') == ['1'] }}",
      "[2, 1]False" },
    { "{{ [1]|select|tojson }}",
      NULL },
};

static llm_result render(const char *tmpl, const char *vars, const llm_jinja_desc *d, char *out, size_t cap, size_t *n, char *err) {
    return llm_jinja_render(tmpl, strlen(tmpl), vars, vars ? strlen(vars) : 0, d, out, cap, n, err, 256);
}

static void test_jinja_cases(void) {
    static char out[1 << 16];
    char err[256];
    size_t i, n, ok = 0;
    llm_jinja_desc d;
    memset(&d, 0, sizeof d);
    d.now = 1721952000; /* 2024-07-26, a Friday */
    for (i = 0; i < sizeof jinja_cases / sizeof jinja_cases[0]; i++) {
        llm_result r = render(jinja_cases[i].tmpl, vars_json, &d, out, sizeof out, &n, err);
        int pass = jinja_cases[i].text ? r == LLM_OK && n == strlen(jinja_cases[i].text) && !memcmp(out, jinja_cases[i].text, n) : r == LLM_ERR_TEMPLATE && err[0];
        if (pass) { ok++; continue; }
        printf("FAIL case %lu: %s\n  want: %s\n  got:  %s\n", (unsigned long)i, jinja_cases[i].tmpl, jinja_cases[i].text ? jinja_cases[i].text : "(an error)",
               r == LLM_OK ? out : err);
        check_failures++;
    }
    check(ok == sizeof jinja_cases / sizeof jinja_cases[0], "%lu of %lu constructs render as jinja2 renders them", (unsigned long)ok,
          (unsigned long)(sizeof jinja_cases / sizeof jinja_cases[0]));
}

/* A limit stops the template with a message naming it; a larger limit lets it finish. */
static void limit(const char *what, const char *tmpl, const char *vars, llm_jinja_desc small, llm_jinja_desc big, const char *word) {
    static char out[1 << 16];
    char err[256];
    size_t n;
    llm_result r = render(tmpl, vars, &small, out, sizeof out, &n, err);
    llm_result r2 = render(tmpl, vars, &big, out, sizeof out, &n, err[0] ? err + 128 : err);
    check(r == LLM_ERR_TEMPLATE && strstr(err, word) && r2 == LLM_OK, "%s: %s; under a larger limit %s", what, r == LLM_ERR_TEMPLATE ? err : "no error",
          llm_result_string(r2));
}

static void test_limits(void) {
    static char deep[20000], deep_json[20000];
    static char out[256];
    char err[256];
    size_t i, n;
    llm_jinja_desc small, big;
    memset(&small, 0, sizeof small);
    big = small;
    small.max_steps = 10000; big.max_steps = 1000000;
    limit("steps", "{% for a in range(100) %}{% for b in range(100) %}{% endfor %}{% endfor %}", NULL, small, big, "steps");
    small.max_steps = big.max_steps = 0;
    small.max_memory = 1 << 20; big.max_memory = 64 << 20;
    limit("memory", "{% set ns = namespace(s='0123456789abcdef') %}{% for i in range(18) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}",
          NULL, small, big, "memory");
    small.max_memory = big.max_memory = 0;
    small.max_depth = 50; big.max_depth = 1000;
    limit("recursion", "{% macro r(n) %}{% if n %}{{ r(n - 1) }}{% endif %}{% endmacro %}{{ r(40) }}", NULL, small, big, "nested");
    memcpy(deep, "{{ ", 3);
    for (i = 3; i < 103; i++) deep[i] = '(';
    deep[103] = '1';
    for (i = 104; i < 204; i++) deep[i] = ')';
    memcpy(deep + 204, " }}", 4);
    limit("nested parentheses", deep, NULL, small, big, "nested");
    memcpy(deep_json, "{\"v\": ", 6);
    for (i = 6; i < 306; i++) deep_json[i] = '[';
    for (; i < 606; i++) deep_json[i] = ']';
    memcpy(deep_json + 606, "}", 2);
    limit("nested JSON", "{{ v|length }}", deep_json, small, big, "nested");
    /* a loop that never ends within the default limits, and unbounded growth, stop by default */
    CHECK(render("{% set l = range(4000) %}{% for a in l %}{% for b in l %}{% endfor %}{% endfor %}", NULL, NULL, out, sizeof out, &n, err) == LLM_ERR_TEMPLATE
          && strstr(err, "steps"), "default step limit: %s", err);
    CHECK(render("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", NULL, NULL, out, sizeof out, &n, err)
          == LLM_ERR_TEMPLATE && strstr(err, "memory"), "default memory limit: %s", err);
    CHECK(render("{% macro r() %}{{ r() }}{% endmacro %}{{ r() }}", NULL, NULL, out, sizeof out, &n, err) == LLM_ERR_TEMPLATE && strstr(err, "nested"),
          "default depth limit: %s", err);
    check(1, "limits: steps, memory, recursion, parentheses, JSON nesting");
}

static void test_jinja_api(void) {
    char out[64], err[256], tiny[4];
    size_t n = 99;
    CHECK(render("abc{{ x }}", "{\"x\": 12}", NULL, out, sizeof out, &n, err) == LLM_OK && n == 5 && !strcmp(out, "abc12"), "render: %s", out);
    CHECK(render("abc{{ x }}", "{\"x\": 12}", NULL, out, 5, &n, err) == LLM_ERR_BUFFER_TOO_SMALL && n == 5, "too small: %d", (int)n);
    CHECK(render("abc{{ x }}", "{\"x\": 12}", NULL, NULL, 0, &n, err) == LLM_ERR_BUFFER_TOO_SMALL && n == 5, "size query");
    CHECK(render("abc", NULL, NULL, out, 4, &n, err) == LLM_OK && n == 3, "exact fit, no variables");
    CHECK(render("{{ x", NULL, NULL, out, sizeof out, &n, err) == LLM_ERR_TEMPLATE && strstr(err, "end"), "unclosed: %s", err);
    CHECK(render("{{ x }}", "[1]", NULL, out, sizeof out, &n, err) == LLM_ERR_TEMPLATE && strstr(err, "object"), "vars not an object: %s", err);
    CHECK(render("{{ x }}", "{\"x\": ", NULL, out, sizeof out, &n, err) == LLM_ERR_TEMPLATE && strstr(err, "JSON"), "bad JSON: %s", err);
    CHECK(render("{{ raise_exception('a long message that does not fit') }}", NULL, NULL, out, sizeof out, &n, err) == LLM_ERR_TEMPLATE, "raise");
    CHECK(llm_jinja_render("{{ raise_exception('long') }}", strlen("{{ raise_exception('long') }}"), NULL, 0, NULL, out, sizeof out, &n, tiny, sizeof tiny) == LLM_ERR_TEMPLATE
          && !strcmp(tiny, "lon"), "message cut to its buffer: %s", tiny);
    CHECK(llm_jinja_render(NULL, 0, NULL, 0, NULL, out, sizeof out, &n, err, sizeof err) == LLM_ERR_INVALID_ARGUMENT, "NULL template");
    CHECK(llm_jinja_render("x", 1, NULL, 3, NULL, out, sizeof out, &n, err, sizeof err) == LLM_ERR_INVALID_ARGUMENT, "NULL vars with a length");
    CHECK(llm_jinja_render("x", 1, NULL, 0, NULL, out, sizeof out, NULL, err, sizeof err) == LLM_ERR_INVALID_ARGUMENT, "NULL n_out");
    CHECK(llm_jinja_render("a{{ 1 }}b", 1, NULL, 0, NULL, out, sizeof out, &n, NULL, 0) == LLM_OK && !strcmp(out, "a"), "length bounds the template");
    CHECK(llm_jinja_render("a{{ 1 }}b", 5, NULL, 0, NULL, out, sizeof out, &n, NULL, 0) == LLM_ERR_TEMPLATE, "a cut tag is an error");
    check(1, "api: sizes, bad arguments, messages");
}

/* A one-layer model of zero weights whose chat metadata the converter's code wrote. */
static llm_model *chat_model(const char *tmpl, const char *bos, void **mem) {
    static const char *const names[] = {
        "model.embed_tokens.weight", "model.norm.weight", "model.layers.0.input_layernorm.weight",
        "model.layers.0.post_attention_layernorm.weight", "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.v_proj.weight",
        "model.layers.0.self_attn.o_proj.weight", "model.layers.0.mlp.gate_proj.weight",
        "model.layers.0.mlp.up_proj.weight", "model.layers.0.mlp.down_proj.weight",
    };
    static const int64_t shapes[][2] = { { 8, 4 }, { 4, 0 }, { 4, 0 }, { 4, 0 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 8, 4 }, { 8, 4 }, { 4, 8 } };
    llm__cv_chat_info ci;
    llm_builder *b;
    const void *hdr;
    size_t hs, i, idx;
    llm_model *m = NULL;
    if (llm_builder_create(&b) != LLM_OK) return NULL;
    llm_builder_set_string(b, "general.architecture", "llama", 5);
    llm_builder_set_i32(b, "llm.vocab_size", 8); llm_builder_set_i32(b, "llm.hidden_size", 4);
    llm_builder_set_i32(b, "llm.intermediate_size", 8); llm_builder_set_i32(b, "llm.num_layers", 1);
    llm_builder_set_i32(b, "llm.num_heads", 1); llm_builder_set_i32(b, "llm.num_kv_heads", 1);
    llm_builder_set_i32(b, "llm.head_dim", 4); llm_builder_set_i32(b, "llm.max_position_embeddings", 64);
    llm_builder_set_f64(b, "llm.rms_norm_eps", 1e-5); llm_builder_set_f64(b, "llm.rope_theta", 10000.0);
    llm_builder_set_i32(b, "llm.tie_word_embeddings", 1);
    llm__cv_chat_set_meta(b, tmpl, bos, NULL, &ci);
    llm__cv_chat_info_free(&ci);
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        llm_builder_add_tensor(b, names[i], LLM_DTYPE_F32, shapes[i][1] ? 2 : 1, shapes[i], &idx);
    if (llm_builder_header(b, &hdr, &hs) == LLM_OK) {
        size_t size = (size_t)llm_builder_file_size(b);
        if ((*mem = calloc(1, size)) != NULL) {
            memcpy(*mem, hdr, hs);
            if (llm_model_open_memory(&m, *mem, size, NULL) != LLM_OK) m = NULL;
        }
    }
    llm_builder_destroy(b);
    return m;
}

/* llm_chat_render on a model whose converter stored a template: the interpreter renders it,
   with the model's tokens, the desc's JSON inputs, and its error text. */
static void test_chat(void) {
    static const char tmpl[] =
        "{{ bos_token }}{% for m in messages %}<{{ m.role }}>{% if m.tool_calls %}{{ m.tool_calls|tojson }}{% else %}{{ m.content }}{% endif %}"
        "{% endfor %}{% if tools %}T{{ tools|length }}{% endif %}{% if enable_thinking is false %}!{% endif %}{{ extra }}"
        "{% if add_generation_prompt %}<assistant>{% endif %}{% if messages|length > 3 %}{{ raise_exception('too long') }}{% endif %}";
    void *file = NULL;
    size_t n;
    llm_model *m = chat_model(tmpl, "<s>", &file);
    llm_chat_message msgs[2] = { { "user", "Hi" }, { "assistant", "Yo" } };
    llm_chat_desc d;
    char out[512], etext[128];
    const char *e = NULL;
    if (!m) { check(0, "a model with a template"); free(file); return; }
    CHECK(llm_chat_render(m, msgs, 2, 1, NULL, out, sizeof out, &n, &e) == LLM_OK && !strcmp(out, "<s><user>Hi<assistant>Yo<assistant>"), "plain: %s", out);
    memset(&d, 0, sizeof d);
    d.messages_json = "[{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"function\": {\"name\": \"f\"}}]}]";
    d.tools_json = "[1, 2]";
    d.vars_json = "{\"extra\": \"E\"}";
    d.no_thinking = 1;
    CHECK(llm_chat_render(m, NULL, 0, 0, &d, out, sizeof out, &n, &e) == LLM_OK
          && !strcmp(out, "<s><assistant>[{\"function\": {\"name\": \"f\"}}]T2!E"), "JSON inputs: %s", out);
    d.messages_json = "[{},{},{},{}]";
    d.error_text = etext; d.error_cap = sizeof etext;
    CHECK(llm_chat_render(m, NULL, 0, 0, &d, out, sizeof out, &n, &e) == LLM_ERR_TEMPLATE && e == etext && !strcmp(etext, "too long"), "raises: %s", etext);
    d.messages_json = "[{]";
    CHECK(llm_chat_render(m, NULL, 0, 0, &d, out, sizeof out, &n, &e) == LLM_ERR_INVALID_ARGUMENT, "bad messages JSON");
    d.messages_json = NULL;
    d.vars_json = "[]";
    CHECK(llm_chat_render(m, msgs, 1, 0, &d, out, sizeof out, &n, &e) == LLM_ERR_INVALID_ARGUMENT, "vars_json not an object");
    memset(&d, 0, sizeof d);
    d.jinja = "{{ messages|length }}{{ bos_token }}";
    CHECK(llm_chat_render(m, msgs, 2, 0, &d, out, sizeof out, &n, &e) == LLM_OK && !strcmp(out, "2<s>"), "jinja override: %s", out);
    d.jinja = NULL;
    {
        llm_jinja *parsed;
        CHECK(llm_jinja_open(&parsed, "[{{ messages[0].content }}]", 27, NULL, etext, sizeof etext) == LLM_OK, "open: %s", etext);
        d.parsed = parsed;
        CHECK(llm_chat_render(m, msgs, 2, 0, &d, out, sizeof out, &n, &e) == LLM_OK && !strcmp(out, "[Hi]"), "a parsed template: %s", out);
        d.parsed = NULL;
        llm_jinja_close(parsed);
    }
    d.template_name = "chatml";
    CHECK(llm_chat_render(m, msgs, 1, 0, &d, out, sizeof out, &n, &e) == LLM_OK && !strcmp(out, "<|im_start|>user\nHi<|im_end|>\n"),
          "a built-in template by name: %s", out);
    memset(&d, 0, sizeof d);
    d.messages_json = "[{},{},{},{}]";
    CHECK(llm_chat_render(m, NULL, 0, 0, &d, out, sizeof out, &n, &e) == LLM_ERR_TEMPLATE && e == out && !strcmp(out, "too long"),
          "the message in out without error_text: %s", e);
    llm_model_close(m);
    free(file);
    check(1, "llm_chat_render runs the stored template");
}

int main(void) {
    test_jinja_cases();
    test_limits();
    test_jinja_api();
    test_chat();
    return check_summary("jinja: all checks passed");
}
