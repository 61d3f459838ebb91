#include "runtime/cudart/Printf.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace cudart {

namespace {

void appendFormatted(std::string &out, const char *format, ...) __attribute__((format(printf, 2, 3)));

void appendFormatted(std::string &out, const char *format, ...) {
  char small[256];
  va_list args;
  va_start(args, format);
  int n = std::vsnprintf(small, sizeof small, format, args);
  va_end(args);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof small) {
    out.append(small, static_cast<size_t>(n));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(big.data(), big.size(), format, args);
  va_end(args);
  out.append(big.data(), static_cast<size_t>(n));
}

/// One conversion: `%[flags][width][.precision][length]conversion`.
struct Spec {
  std::string flags;
  int width = -1, precision = -1;
  std::string length;
  char conversion = 0;
  size_t end = 0; // one past the conversion character in the format
};

bool isFlag(char c) { return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0' || c == '\''; }

/// Parses the conversion starting at format[start] == '%'. Width and
/// precision given as `*` are read from the arguments.
bool parseSpec(std::string_view format, size_t start, Spec &s, PrintfArguments &args, int &consumed,
               bool &ok) {
  size_t i = start + 1;
  while (i < format.size() && isFlag(format[i])) s.flags += format[i++];
  auto number = [&](int &out) {
    if (i < format.size() && format[i] == '*') {
      ++i;
      uint64_t bits = 0;
      if (!args.next(4, bits)) {
        ok = false;
        return;
      }
      ++consumed;
      out = static_cast<int32_t>(bits);
      return;
    }
    if (i >= format.size() || format[i] < '0' || format[i] > '9') return;
    int v = 0;
    while (i < format.size() && format[i] >= '0' && format[i] <= '9' && v < 100000)
      v = v * 10 + (format[i++] - '0');
    out = v;
  };
  number(s.width);
  if (s.width < -1) { // a negative `*` width means left-justified
    s.flags += '-';
    s.width = -s.width;
  }
  if (i < format.size() && format[i] == '.') {
    ++i;
    s.precision = 0;
    number(s.precision);
    if (s.precision < -1) s.precision = -1;
  }
  while (i < format.size() && std::strchr("hlLqjzt", format[i])) s.length += format[i++];
  if (i >= format.size()) return false;
  s.conversion = format[i];
  s.end = i + 1;
  return true;
}

/// The spec as a host format with the given length and conversion.
std::string hostFormat(const Spec &s, const char *length, char conversion) {
  std::string f = "%" + s.flags;
  if (s.width >= 0) f += std::to_string(s.width);
  if (s.precision >= 0) f += "." + std::to_string(s.precision);
  f += length;
  f += conversion;
  return f;
}

bool wide(const Spec &s) {
  return s.length == "l" || s.length == "ll" || s.length == "L" || s.length == "q" || s.length == "j" ||
         s.length == "z" || s.length == "t";
}

} // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

PrintfResult formatDevicePrintf(std::string_view format, PrintfArguments &args) {
  PrintfResult r;
  size_t i = 0;
  while (i < format.size()) {
    char c = format[i];
    if (c != '%') {
      r.text += c;
      ++i;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      r.text += '%';
      i += 2;
      continue;
    }
    Spec s;
    if (!r.ok || !parseSpec(format, i, s, args, r.arguments, r.ok) || !r.ok) {
      // Unreadable arguments or a truncated spec: the rest as written.
      r.text.append(format.substr(i));
      break;
    }
    uint64_t bits = 0;
    auto fetch = [&](unsigned size) {
      if (!args.next(size, bits)) {
        r.ok = false;
        return false;
      }
      ++r.arguments;
      return true;
    };
    switch (s.conversion) {
    case 'd':
    case 'i': {
      if (!fetch(wide(s) ? 8 : 4)) break;
      long long v = wide(s)            ? static_cast<long long>(bits)
                    : s.length == "h"  ? static_cast<short>(bits)
                    : s.length == "hh" ? static_cast<signed char>(bits)
                                       : static_cast<int32_t>(bits);
      appendFormatted(r.text, hostFormat(s, "ll", s.conversion).c_str(), v);
      break;
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X': {
      if (!fetch(wide(s) ? 8 : 4)) break;
      unsigned long long v = wide(s)            ? bits
                             : s.length == "h"  ? static_cast<unsigned short>(bits)
                             : s.length == "hh" ? static_cast<unsigned char>(bits)
                                                : static_cast<uint32_t>(bits);
      appendFormatted(r.text, hostFormat(s, "ll", s.conversion).c_str(), v);
      break;
    }
    case 'c':
      if (!fetch(4)) break;
      appendFormatted(r.text, hostFormat(s, "", 'c').c_str(),
                      static_cast<int>(static_cast<unsigned char>(bits)));
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      // Floats reach printf as doubles (C's default argument promotion).
      if (!fetch(8)) break;
      double v;
      std::memcpy(&v, &bits, 8);
      appendFormatted(r.text, hostFormat(s, "", s.conversion).c_str(), v);
      break;
    }
    case 's': {
      if (!fetch(8)) break;
      std::string text;
      if (bits == 0) {
        text = "(null)";
      } else if (!args.string(bits, text)) {
        r.ok = false;
        break;
      }
      appendFormatted(r.text, hostFormat(s, "", 's').c_str(), text.c_str());
      break;
    }
    case 'p':
      if (!fetch(8)) break;
      appendFormatted(r.text, hostFormat(s, "", 'p').c_str(),
                      reinterpret_cast<void *>(static_cast<uintptr_t>(bits)));
      break;
    case 'n':
      fetch(8); // writes nothing back: the GPU's printf does not support %n either
      break;
    default:
      r.text.append(format.substr(i, s.end - i)); // unknown conversion: as written
      break;
    }
    if (!r.ok) {
      r.text.append(format.substr(i));
      break;
    }
    i = s.end;
  }
  return r;
}

#pragma GCC diagnostic pop

} // namespace cudart
