#include "abi/LayoutDiagram.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::abi {
namespace {

struct Owner {
  std::uint64_t begin = 0, end = 0; // bits
  std::string label;
  bool shortened = false; // `label` is only the last part of a dotted path too long for any cell
};

// The widest cell of a 32-bit row leaves 2 * 32 - 1 columns for its label; longer labels are always cut
// down to their last part, so longer paths are never built: in a deeply nested struct they would cost
// the square of the depth.
constexpr std::size_t kWidestLabel = 2 * 32 - 1;

// A dotted member path ("outer.inner.x"), spelled out only while it could fit in a cell.
struct Path {
  std::string text;       // the whole path when length <= kWidestLabel, empty otherwise
  std::size_t length = 0; // length of the whole path
  std::string last;       // its last part
};

Path extend(const Path &prefix, const std::string &name) {
  if (name.empty())
    return prefix; // anonymous struct/union: its members belong to the parent
  Path out;
  out.length = prefix.length == 0 ? name.size() : prefix.length + 1 + name.size();
  out.last = name;
  if (out.length <= kWidestLabel)
    out.text = prefix.length == 0 ? name : prefix.text + "." + name;
  return out;
}

void collect(const MemberLayout &m, const Path &prefix, std::vector<Owner> &out);

void collect(const std::vector<MemberLayout> &members, const Path &prefix, std::vector<Owner> &out) {
  for (const MemberLayout &m : members)
    collect(m, prefix, out);
}

void collect(const MemberLayout &m, const Path &prefix, std::vector<Owner> &out) {
  if (m.isBitField && (m.name.empty() || m.bitWidth == 0))
    return; // unnamed bit fields are padding
  Path name = extend(prefix, m.name);
  if (!m.isBitField && m.type->kind == TypeKind::Record) {
    collect(m.members, name, out);
    return;
  }
  if (name.length == 0)
    out.push_back(Owner{m.bitOffset, m.bitOffset + m.bitWidth, "?", false});
  else if (name.length <= kWidestLabel)
    out.push_back(Owner{m.bitOffset, m.bitOffset + m.bitWidth, name.text, false});
  else
    out.push_back(Owner{m.bitOffset, m.bitOffset + m.bitWidth, name.last, true});
}

void put(std::string &line, std::size_t column, std::string_view text) {
  if (line.size() < column + text.size())
    line.resize(column + text.size(), ' ');
  line.replace(column, text.size(), text);
}

// Whether `width` columns from `column`, and one column either side, are blank.
bool freeAt(const std::string &line, std::size_t column, std::size_t width) {
  for (std::size_t c = column == 0 ? 0 : column - 1; c < column + width + 1; ++c)
    if (c < line.size() && line[c] != ' ')
      return false;
  return true;
}

void rtrim(std::string &line) {
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
}

// One band: the bits of [0, size*8) owned by `owners` (others are pad), drawn 32 bits a row.
void drawBand(std::string &out, const std::vector<Owner> &owners, std::uint64_t sizeBytes, unsigned maxRows) {
  const std::uint64_t totalBits = sizeBytes * 8;
  std::uint64_t rows = (totalBits + 31) / 32;
  for (std::uint64_t row = 0; row < rows; ++row) {
    if (row == maxRows) {
      out += fmt::format("... {} more rows\n", rows - row);
      return;
    }
    const std::uint64_t base = row * 32;
    const unsigned bits = static_cast<unsigned>(std::min<std::uint64_t>(32, totalBits - base));
    // owner index per bit (-1 = pad)
    std::vector<int> who(bits, -1);
    for (std::size_t i = 0; i < owners.size(); ++i)
      for (std::uint64_t b = std::max(owners[i].begin, base); b < std::min(owners[i].end, base + bits); ++b)
        who[b - base] = static_cast<int>(i);
    const std::size_t width = 2 * bits + 1;
    auto leftEdge = [&](unsigned bit) { return static_cast<std::size_t>(2 * (bits - 1 - bit)); }; // column
    std::string bytesLine, border(width, '-'), cells(width, ' '), numbers;
    // Each byte's offset at its upper right corner.
    for (unsigned byte = 0; byte * 8 < bits; ++byte) {
      std::string offset = std::to_string(base / 8 + byte);
      put(bytesLine, 2 * (bits - 8 * byte) + 1 - offset.size(), offset);
    }
    // Segments from the most significant bit (left) to bit 0 (right).
    unsigned hi = bits;
    while (hi > 0) {
      unsigned top = hi - 1;
      unsigned lo = top;
      while (lo > 0 && who[lo - 1] == who[top])
        --lo;
      std::size_t left = leftEdge(top), right = leftEdge(lo) + 2;
      border[left] = border[right] = '+';
      cells[left] = cells[right] = '|';
      const Owner *owner = who[top] < 0 ? nullptr : &owners[static_cast<std::size_t>(who[top])];
      std::string label = owner == nullptr ? "pad" : owner->label;
      std::size_t room = right - left - 1;
      if (label.size() > room && !(owner != nullptr && owner->shortened) && label.find('.') != std::string::npos)
        label = label.substr(label.rfind('.') + 1); // "outer.inner" → "inner" when it does not fit
      if (label.size() > room)
        label = label.substr(0, room);
      put(cells, left + 1 + (room - label.size()) / 2, label);
      std::string hiText = std::to_string(top), loText = std::to_string(lo);
      // The field's most significant bit under its left corner, its least significant under its right.
      if (freeAt(numbers, left + 1, hiText.size()))
        put(numbers, left + 1, hiText);
      if (lo != top && right >= loText.size() && freeAt(numbers, right - loText.size(), loText.size()))
        put(numbers, right - loText.size(), loText);
      hi = lo;
    }
    rtrim(bytesLine);
    rtrim(numbers);
    out += bytesLine + "\n" + border + "\n" + cells + "\n" + border + "\n" + numbers + "\n";
  }
}

} // namespace

std::string layoutDiagram(const Layout &layout, std::string_view title, const DiagramOptions &options) {
  std::string name = title.empty() ? typeName(layout.type) : std::string(title);
  std::string out = fmt::format("{}: little endian, {}-byte aligned, sizeof is {}\n", name, layout.align, layout.size);
  if (layout.size == 0)
    return out;
  const Type &type = *layout.type;
  if (type.kind == TypeKind::Record && type.isUnion) {
    for (const MemberLayout &m : layout.members) {
      if (m.isBitField && (m.name.empty() || m.bitWidth == 0))
        continue;
      std::vector<Owner> owners;
      collect(m, Path{}, owners);
      out += fmt::format("member {}:\n", m.name.empty() ? "<anonymous>" : m.name);
      drawBand(out, owners, layout.size, options.maxRows);
    }
    return out;
  }
  std::vector<Owner> owners;
  if (type.kind == TypeKind::Record)
    collect(layout.members, Path{}, owners);
  else
    owners.push_back(Owner{0, layout.size * 8, typeName(type)});
  drawBand(out, owners, layout.size, options.maxRows);
  return out;
}

} // namespace ptxray::abi
