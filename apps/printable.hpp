// Text from files (tensor names, vocabulary words, paths) made safe to print on a
// terminal and to put in XML: a control character would reach the terminal as an
// escape sequence, and XML 1.0 admits neither control characters nor invalid UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace andrea::cli {

/// `text` with every byte that is not part of a valid UTF-8 character, and every
/// control character (U+0000-U+001F, U+007F, U+0080-U+009F) and the noncharacters
/// U+FFFE and U+FFFF, written as the escape \xNN (one per byte, C-style):
/// "a\x1b[31m" -> "a\x1b[31m" as the four characters \ x 1 b, then "[31m".
/// The result is valid UTF-8 with no control character. Source for what XML
/// admits: XML 1.0, section 2.2 (Char).
std::string printable(std::string_view text);

}  // namespace andrea::cli
