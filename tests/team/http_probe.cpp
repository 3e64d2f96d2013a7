#include "http_probe.hpp"
#include "../support/test_json.hpp"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <sstream>

namespace kg::test {

std::vector<rapidjson::Document> ProbeAnswer::messages() const {
  std::vector<rapidjson::Document> out;
  auto add = [&](const std::string& text) {
    kg::json::ReadJson document_read = kg::test::read_test_json(text);
    rapidjson::Document& document = document_read.document;
    if (!document_read.refused) out.push_back(std::move(document));
  };
  if (header("content-type").find("text/event-stream") == std::string::npos) {
    if (!body.empty()) add(body);
    return out;
  }
  std::istringstream lines(body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("data: ")) add(line.substr(6));
  }
  return out;
}

ProbeAnswer HttpProbe::request(const std::string& method, const std::string& path,
                               const std::string& body, const ProbeHeaders& headers) const {
  Poco::Net::HTTPClientSession session(host_, static_cast<Poco::UInt16>(port_));
  session.setTimeout(Poco::Timespan(300, 0));
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  for (const auto& [name, value] : headers) request.set(name, value);
  if (!body.empty() || method == "POST") request.setContentLength64(static_cast<Poco::Int64>(body.size()));
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  ProbeAnswer answer;
  answer.status = static_cast<int>(response.getStatus());
  for (const auto& [name, value] : response) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    answer.headers[lower] = value;
  }
  std::ostringstream text;
  Poco::StreamCopier::copyStream(in, text);
  answer.body = text.str();
  return answer;
}

ProbeAnswer HttpProbe::post_mcp(const std::string& body, ProbeHeaders headers) const {
  headers.emplace_back("Content-Type", "application/json");
  headers.emplace_back("Accept", "application/json, text/event-stream");
  return request("POST", "/mcp", body, headers);
}

int free_loopback_port() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  const int port = socket.address().port();
  socket.close();
  return port;
}

}  // namespace kg::test
