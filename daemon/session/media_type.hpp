// The media type of a file a program left under /app/out, for the call's `files` list, the
// daemon API's Content-Type and MCP's resource links: from the name's extension, else from the
// first bytes (the usual image and document signatures; UTF-8 text without NUL is text/plain),
// else application/octet-stream. Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace kg::session {

std::string guess_media_type(std::string_view name, std::string_view content);

}  // namespace kg::session
