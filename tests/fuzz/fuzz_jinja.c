/* Fuzz target: the Jinja interpreter (llm_jinja_render) on arbitrary template text and
   variables, under small limits. Whatever the input, a render returns a result code, never
   crashes, loops or grows without bound, and a text it returns has the length it reports.
   Input: the template, then optionally a NUL byte and the variables as JSON; without one a
   fixed conversation (messages with tool calls, tools, add_generation_prompt) is used. */
#include "../../llm.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char llm_fuzz_vars[] =
    "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": \"Hi \\u00e9\"},"
    " {\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\","
    " \"function\": {\"name\": \"f\", \"arguments\": {\"a\": 1, \"b\": [2.5, true, null]}}}]},"
    " {\"role\": \"tool\", \"content\": \"{\\\"r\\\": 3}\"}],"
    " \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {\"type\": \"object\"}}}],"
    " \"add_generation_prompt\": true, \"bos_token\": \"<s>\", \"eos_token\": \"</s>\"}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char out[1 << 16], err[256];
    const char *tmpl = (const char *)data, *vars = llm_fuzz_vars;
    const uint8_t *nul = (const uint8_t *)memchr(data, 0, size);
    size_t tmpl_len = size, vars_len = sizeof llm_fuzz_vars - 1, n = 0;
    llm_jinja_desc d;
    llm_result r;
    if (nul) { tmpl_len = (size_t)(nul - data); vars = (const char *)nul + 1; vars_len = size - tmpl_len - 1; }
    memset(&d, 0, sizeof d);
    d.max_steps = 20000;
    d.max_memory = 1 << 22;
    d.max_depth = 64;
    d.now = 1721952000;
    r = llm_jinja_render(tmpl, tmpl_len, vars, vars_len, &d, out, sizeof out, &n, err, sizeof err);
    if (r == LLM_OK && (n >= sizeof out || out[n] != 0)) abort();
    if (r != LLM_OK && r != LLM_ERR_TEMPLATE && r != LLM_ERR_BUFFER_TOO_SMALL && r != LLM_ERR_OUT_OF_MEMORY) abort();
    if (r != LLM_OK && strlen(err) >= sizeof err) abort();
    return 0;
}
