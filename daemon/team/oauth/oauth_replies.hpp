// The shapes of the authorization server's answers: JSON documents, RFC 6749 §5.2 errors of the
// token and registration endpoints, redirects (the error ones of §4.1.2.1 with state and iss),
// and the short plain page a browser gets when there is nowhere safe to redirect to.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

#include "http_exchange.hpp"

namespace kg::team::oauth {

std::string to_json(const rapidjson::Value& value);
HttpReply json_reply(int status, const rapidjson::Value& document);
// {"error": code, "error_description": description}, no-store.
HttpReply oauth_error(int status, const std::string& code, const std::string& description);
HttpReply redirect_reply(const std::string& location);
// Text made safe to put in HTML (element content and quoted attribute values).
std::string html_escape(const std::string& text);
// text/html; the text is escaped. Says what was wrong and what to do.
HttpReply page_reply(int status, const std::string& title, const std::string& text);

}  // namespace kg::team::oauth
