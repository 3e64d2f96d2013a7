// The system prompt for an agent that uses kode-gopher's tools: how to write a snippet or a
// program, which packages are curated, how results come back, the limits, and tips. The MCP
// server offers it as a prompt (prompts/list, prompts/get) and `kode-gopher prompt` prints it,
// so both give the same text; the curated packages in it come from the same generated list as
// the tool descriptions (tool_descriptions.hpp). Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>

namespace kg::mcp {

inline constexpr std::string_view kSystemPromptName = "kode_gopher_system_prompt";
inline constexpr std::string_view kSystemPromptTitle = "How to use kode-gopher";
inline constexpr std::string_view kSystemPromptDescription =
    "System prompt for an agent using kode-gopher: how to write Go for execute_go_code (a "
    "func run snippet or a whole program), the curated packages, how results come back, the "
    "limits, and tips.";

// The prompt's text (Markdown), ending in a newline.
std::string system_prompt_text();

}  // namespace kg::mcp
