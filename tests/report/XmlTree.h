// A small, strict XML 1.0 well-formedness checker that also builds a tree, for the report tests: the
// machines that run the tests need not have xmllint, and the tests want to look inside the SVG (find the
// marker's circle, read its coordinates) without string matching.
//
// Supported: XML declaration, processing instructions, comments, a DOCTYPE without internal subset,
// CDATA sections, the five predefined entities and character references. Checked: UTF-8 validity,
// characters XML forbids, names, quoting, '<' and bare '&' in text and attributes, "]]>" in text,
// duplicate attributes, matching end tags, a single root element. Not checked: namespaces, DTDs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxray::test {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes; ///< values with references decoded
  std::vector<XmlElement> children;
  std::string text; ///< the element's own character data, decoded, concatenated

  const std::string *attribute(std::string_view attributeName) const {
    for (const auto &[k, v] : attributes)
      if (k == attributeName)
        return &v;
    return nullptr;
  }
  std::string attr(std::string_view attributeName) const {
    const std::string *v = attribute(attributeName);
    return v ? *v : std::string();
  }
  bool hasClass(std::string_view cls) const {
    const std::string classes = attr("class");
    size_t start = 0;
    while (start <= classes.size()) {
      size_t end = std::min(classes.find(' ', start), classes.size());
      if (std::string_view(classes).substr(start, end - start) == cls)
        return true;
      start = end + 1;
    }
    return false;
  }
};

/// Every element under `root` (root included, document order) for which `pred` holds.
inline void collectElements(const XmlElement &root, const std::function<bool(const XmlElement &)> &pred,
                            std::vector<const XmlElement *> &out) {
  if (pred(root))
    out.push_back(&root);
  for (const XmlElement &child : root.children)
    collectElements(child, pred, out);
}

/// Elements named `name` (any name if empty) that have class `cls` (any if empty).
inline std::vector<const XmlElement *> findElements(const XmlElement &root, std::string_view name,
                                                    std::string_view cls = {}) {
  std::vector<const XmlElement *> out;
  collectElements(
      root, [&](const XmlElement &e) { return (name.empty() || e.name == name) && (cls.empty() || e.hasClass(cls)); },
      out);
  return out;
}

struct XmlParse {
  std::optional<XmlElement> root;
  std::string error; ///< "line N: what", empty when well-formed
};

namespace detail {

class XmlParser {
public:
  explicit XmlParser(std::string_view doc) : doc_(doc) {}

  XmlParse parse() {
    XmlParse result;
    if (!checkCharacters()) {
      result.error = error_;
      return result;
    }
    XmlElement root;
    if (parseDocument(root))
      result.root = std::move(root);
    else
      result.error = error_;
    return result;
  }

private:
  std::string_view doc_;
  size_t pos_ = 0;
  std::string error_;

  bool fail(const std::string &what) {
    if (error_.empty()) {
      size_t line = 1;
      for (size_t i = 0; i < pos_ && i < doc_.size(); ++i)
        line += doc_[i] == '\n';
      error_ = "line " + std::to_string(line) + ": " + what;
    }
    return false;
  }

  static bool isXmlChar(uint32_t c) {
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0x10FFFF);
  }

  /// Decodes the whole document as UTF-8 once, so the rest can work on bytes.
  bool checkCharacters() {
    const auto *s = reinterpret_cast<const unsigned char *>(doc_.data());
    size_t n = doc_.size();
    for (size_t i = 0; i < n;) {
      pos_ = i;
      uint32_t c = s[i];
      size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
      if (len == 0 || i + len > n)
        return fail("invalid UTF-8");
      if (len > 1) {
        c &= 0x3F >> (len - 1);
        for (size_t k = 1; k < len; ++k) {
          if ((s[i + k] & 0xC0) != 0x80)
            return fail("invalid UTF-8");
          c = (c << 6) | (s[i + k] & 0x3F);
        }
        static constexpr uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (c < kMin[len])
          return fail("overlong UTF-8");
      }
      if (!isXmlChar(c))
        return fail("character not allowed in XML");
      i += len;
    }
    pos_ = 0;
    return true;
  }

  bool atEnd() const { return pos_ >= doc_.size(); }
  bool lookingAt(std::string_view s) const { return doc_.substr(pos_).starts_with(s); }
  void skipSpace() {
    while (!atEnd() && (doc_[pos_] == ' ' || doc_[pos_] == '\t' || doc_[pos_] == '\n' || doc_[pos_] == '\r'))
      ++pos_;
  }
  static bool isNameStart(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || c >= 0x80;
  }
  static bool isNameChar(unsigned char c) { return isNameStart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

  bool parseName(std::string &name) {
    if (atEnd() || !isNameStart(static_cast<unsigned char>(doc_[pos_])))
      return fail("expected a name");
    size_t start = pos_;
    while (!atEnd() && isNameChar(static_cast<unsigned char>(doc_[pos_])))
      ++pos_;
    name = std::string(doc_.substr(start, pos_ - start));
    return true;
  }

  static void appendUtf8(std::string &out, uint32_t c) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }

  /// At '&': a predefined entity or a character reference.
  bool parseReference(std::string &out) {
    size_t semi = doc_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12)
      return fail("'&' that does not start a reference");
    std::string_view ref = doc_.substr(pos_ + 1, semi - pos_ - 1);
    pos_ = semi + 1;
    if (ref == "amp")
      out += '&';
    else if (ref == "lt")
      out += '<';
    else if (ref == "gt")
      out += '>';
    else if (ref == "quot")
      out += '"';
    else if (ref == "apos")
      out += '\'';
    else if (ref.size() > 1 && ref[0] == '#') {
      bool hex = ref[1] == 'x';
      std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty())
        return fail("empty character reference");
      uint32_t c = 0;
      for (char d : digits) {
        int v = d >= '0' && d <= '9'          ? d - '0'
                : hex && d >= 'a' && d <= 'f' ? d - 'a' + 10
                : hex && d >= 'A' && d <= 'F' ? d - 'A' + 10
                                              : -1;
        if (v < 0 || c > 0x10FFFF)
          return fail("bad character reference");
        c = c * (hex ? 16 : 10) + static_cast<uint32_t>(v);
      }
      if (!isXmlChar(c))
        return fail("character reference to a character XML forbids");
      appendUtf8(out, c);
    } else {
      return fail("unknown entity '&" + std::string(ref) + ";'");
    }
    return true;
  }

  bool parseAttributeValue(std::string &value) {
    if (atEnd() || (doc_[pos_] != '"' && doc_[pos_] != '\''))
      return fail("attribute value not quoted");
    char quote = doc_[pos_++];
    while (true) {
      if (atEnd())
        return fail("unterminated attribute value");
      char c = doc_[pos_];
      if (c == quote) {
        ++pos_;
        return true;
      }
      if (c == '<')
        return fail("'<' in an attribute value");
      if (c == '&') {
        if (!parseReference(value))
          return false;
        continue;
      }
      value += c;
      ++pos_;
    }
  }

  bool skipComment() { // at "<!--"
    size_t end = doc_.find("--", pos_ + 4);
    if (end == std::string_view::npos)
      return fail("unterminated comment");
    if (doc_.substr(end, 3) != "-->")
      return fail("'--' inside a comment");
    pos_ = end + 3;
    return true;
  }

  bool skipProcessingInstruction() { // at "<?"
    size_t end = doc_.find("?>", pos_ + 2);
    if (end == std::string_view::npos)
      return fail("unterminated processing instruction");
    pos_ = end + 2;
    return true;
  }

  /// Comments, processing instructions and white space, outside the root element.
  bool skipMisc() {
    while (true) {
      skipSpace();
      if (lookingAt("<!--")) {
        if (!skipComment())
          return false;
      } else if (lookingAt("<?")) {
        if (!skipProcessingInstruction())
          return false;
      } else {
        return true;
      }
    }
  }

  bool parseDocument(XmlElement &root) {
    if (lookingAt("<?xml") && !skipProcessingInstruction())
      return false;
    if (!skipMisc())
      return false;
    if (lookingAt("<!DOCTYPE")) {
      size_t end = doc_.find('>', pos_);
      if (end == std::string_view::npos)
        return fail("unterminated DOCTYPE");
      if (doc_.substr(pos_, end - pos_).find('[') != std::string_view::npos)
        return fail("DOCTYPE internal subsets are not supported");
      pos_ = end + 1;
      if (!skipMisc())
        return false;
    }
    if (!lookingAt("<"))
      return fail("expected the root element");
    if (!parseElement(root, 0))
      return false;
    if (!skipMisc())
      return false;
    if (!atEnd())
      return fail("content after the root element");
    return true;
  }

  bool parseElement(XmlElement &element, int depth) {
    if (depth > 256)
      return fail("elements nested too deeply");
    ++pos_; // '<'
    if (!parseName(element.name))
      return false;
    while (true) {
      size_t before = pos_;
      skipSpace();
      if (lookingAt("/>")) {
        pos_ += 2;
        return true;
      }
      if (lookingAt(">")) {
        ++pos_;
        break;
      }
      if (pos_ == before)
        return fail("expected white space before an attribute");
      std::string name, value;
      if (!parseName(name))
        return false;
      skipSpace();
      if (!lookingAt("="))
        return fail("expected '=' after attribute " + name);
      ++pos_;
      skipSpace();
      if (!parseAttributeValue(value))
        return false;
      if (element.attribute(name))
        return fail("duplicate attribute " + name);
      element.attributes.emplace_back(std::move(name), std::move(value));
    }
    // Content, up to the matching end tag.
    while (true) {
      if (atEnd())
        return fail("unclosed element <" + element.name + ">");
      if (lookingAt("</")) {
        pos_ += 2;
        std::string name;
        if (!parseName(name))
          return false;
        if (name != element.name)
          return fail("</" + name + "> closes <" + element.name + ">");
        skipSpace();
        if (!lookingAt(">"))
          return fail("expected '>' in end tag");
        ++pos_;
        return true;
      }
      if (lookingAt("<!--")) {
        if (!skipComment())
          return false;
      } else if (lookingAt("<![CDATA[")) {
        size_t end = doc_.find("]]>", pos_);
        if (end == std::string_view::npos)
          return fail("unterminated CDATA section");
        element.text += doc_.substr(pos_ + 9, end - pos_ - 9);
        pos_ = end + 3;
      } else if (lookingAt("<?")) {
        if (!skipProcessingInstruction())
          return false;
      } else if (lookingAt("<")) {
        element.children.emplace_back();
        if (!parseElement(element.children.back(), depth + 1))
          return false;
      } else if (lookingAt("&")) {
        if (!parseReference(element.text))
          return false;
      } else {
        if (lookingAt("]]>"))
          return fail("']]>' in text");
        element.text += doc_[pos_++];
      }
    }
  }
};

} // namespace detail

inline XmlParse parseXml(std::string_view document) {
  return detail::XmlParser(document).parse();
}

} // namespace ptxray::test
