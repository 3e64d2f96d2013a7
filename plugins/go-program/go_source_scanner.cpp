#include "go_source_scanner.hpp"

#include <algorithm>
#include <cctype>

namespace kg::go_program {
namespace {

// A token stream over Go source that yields identifiers and single punctuation characters and
// swallows comments and literals.
class GoTokenizer {
 public:
  explicit GoTokenizer(std::string_view source) : src_(source) {
    if (src_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
  }

  struct Token {
    enum Kind { identifier, punct, literal, end } kind;
    std::string_view text;
    int line;
  };

  Token next() {
    skip_space_and_comments();
    if (pos_ >= src_.size()) return {Token::end, {}, line_};
    const char c = src_[pos_];
    const int line = line_;
    if (is_ident_start(c)) {
      const auto start = pos_;
      while (pos_ < src_.size() && is_ident_part(src_[pos_])) ++pos_;
      return {Token::identifier, src_.substr(start, pos_ - start), line};
    }
    if (c == '"' || c == '\'') {
      const auto start = pos_;
      skip_quoted(c);
      return {Token::literal, text_from(start), line};
    }
    if (c == '`') {
      const auto start = pos_;
      ++pos_;
      while (pos_ < src_.size() && src_[pos_] != '`') {
        if (src_[pos_] == '\n') ++line_;
        ++pos_;
      }
      ++pos_;
      return {Token::literal, text_from(start), line};
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (pos_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[pos_])) ||
                                    src_[pos_] == '.' || src_[pos_] == '_')) {
        ++pos_;
      }
      return {Token::literal, {}, line};
    }
    ++pos_;
    return {Token::punct, src_.substr(pos_ - 1, 1), line};
  }

 private:
  // The literal's text, quotes included (cut at the end of a source that ends inside it).
  std::string_view text_from(std::size_t start) const {
    return src_.substr(start, std::min(pos_, src_.size()) - start);
  }

  static bool is_ident_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;  // Unicode letters, roughly
  }
  static bool is_ident_part(char c) {
    return is_ident_start(c) || std::isdigit(static_cast<unsigned char>(c));
  }

  void skip_space_and_comments() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (src_.substr(pos_, 2) == "//") {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else if (src_.substr(pos_, 2) == "/*") {
        pos_ += 2;
        while (pos_ < src_.size() && src_.substr(pos_, 2) != "*/") {
          if (src_[pos_] == '\n') ++line_;
          ++pos_;
        }
        pos_ += 2;
      } else {
        return;
      }
    }
  }

  void skip_quoted(char quote) {
    ++pos_;
    while (pos_ < src_.size() && src_[pos_] != quote && src_[pos_] != '\n') {
      if (src_[pos_] == '\\') ++pos_;
      ++pos_;
    }
    ++pos_;
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

// `text` with each run of white space made one space, trimmed, cut at `max` bytes.
std::string collapsed(std::string_view text, std::size_t max) {
  std::string out;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max) out = out.substr(0, max) + "…";
  return out;
}

// Collects a top-level function's signature, token by token, until its body starts.
class SignatureReader {
 public:
  explicit SignatureReader(std::string_view source) : source_(source) {}

  void start(TopLevelFunc& func, std::string_view name) {
    func_ = &func;
    start_ = offset(name) + name.size();
    end_ = start_;
  }

  // Reads one token seen at bracket depth `depth` (before the token itself counts); stops at
  // the body's `{` or, for a declaration without a body, at the next top-level keyword.
  void read(const GoTokenizer::Token& token, int depth) {
    if (func_ == nullptr) return;
    const bool body = token.kind == GoTokenizer::Token::punct && token.text == "{" && depth == 0 &&
                      (func_->signature_tokens.empty() ||
                       (func_->signature_tokens.back() != "interface" &&
                        func_->signature_tokens.back() != "struct"));
    const bool next_declaration =
        token.kind == GoTokenizer::Token::identifier && depth == 0 &&
        (token.text == "func" || token.text == "type" || token.text == "var" ||
         token.text == "const" || token.text == "import");
    if (body || next_declaration || token.kind == GoTokenizer::Token::end) {
      finish();
      return;
    }
    if (func_->signature_tokens.size() < TopLevelFunc::kMaxSignatureTokens) {
      func_->signature_tokens.emplace_back(token.text.empty() ? std::string_view("0") : token.text);
    }
    if (token.text.data() != nullptr) end_ = offset(token.text) + token.text.size();
  }

  void finish() {
    if (func_ == nullptr) return;
    func_->signature_text =
        collapsed(source_.substr(start_, end_ - start_), TopLevelFunc::kMaxSignatureText);
    func_ = nullptr;
  }

 private:
  std::size_t offset(std::string_view part) const {
    return static_cast<std::size_t>(part.data() - source_.data());
  }

  std::string_view source_;
  TopLevelFunc* func_ = nullptr;
  std::size_t start_ = 0, end_ = 0;
};

}  // namespace

GoFileOutline outline_go_file(std::string_view source) {
  GoFileOutline outline;
  GoTokenizer tokens(source);
  auto token = tokens.next();
  if (token.kind == GoTokenizer::Token::identifier && token.text == "package") {
    auto name = tokens.next();
    if (name.kind == GoTokenizer::Token::identifier) {
      outline.package_name = std::string(name.text);
      outline.package_name_offset = static_cast<std::size_t>(name.text.data() - source.data());
      outline.package_line = token.line;
    }
  }
  if (!outline.package_name) return outline;
  int depth = 0;  // of (), [] and {} together: top level is depth 0
  bool after_func = false;
  int func_line = 0;
  // In an import declaration: its first token after `import`, or inside its ( ) group.
  enum class InImport { no, single, group } in_import = InImport::no;
  SignatureReader signature(source);
  for (token = tokens.next(); token.kind != GoTokenizer::Token::end; token = tokens.next()) {
    signature.read(token, depth);
    if (in_import != InImport::no) {
      if (token.kind == GoTokenizer::Token::literal && token.text.size() >= 2) {
        outline.imports.push_back({std::string(token.text.substr(1, token.text.size() - 2)),
                                   token.line});
        if (in_import == InImport::single) in_import = InImport::no;
        continue;
      }
      if (token.kind == GoTokenizer::Token::punct && token.text == "(" &&
          in_import == InImport::single) {
        in_import = InImport::group;
        ++depth;
        continue;
      }
      if (token.kind == GoTokenizer::Token::punct && token.text == ")" &&
          in_import == InImport::group) {
        in_import = InImport::no;
        --depth;
        continue;
      }
      if (token.kind == GoTokenizer::Token::identifier ||
          (token.kind == GoTokenizer::Token::punct && (token.text == "." || token.text == ";"))) {
        continue;  // an import's name (alias, ., _) or a separator
      }
      in_import = InImport::no;  // not an import after all: read the token as usual
    }
    if (token.kind == GoTokenizer::Token::identifier && depth == 0 && token.text == "import") {
      in_import = InImport::single;
      after_func = false;
      continue;
    }
    if (token.kind == GoTokenizer::Token::punct) {
      const char c = token.text[0];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
      after_func = false;
      continue;
    }
    if (token.kind == GoTokenizer::Token::identifier && depth == 0) {
      if (after_func) {
        outline.functions.push_back({std::string(token.text), func_line, {}, {}});
        signature.start(outline.functions.back(), token.text);
        after_func = false;
      } else if (token.text == "func") {
        after_func = true;
        func_line = token.line;
      }
      continue;
    }
    after_func = false;
  }
  signature.finish();
  return outline;
}

}  // namespace kg::go_program
