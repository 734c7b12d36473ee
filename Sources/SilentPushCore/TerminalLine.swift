/// A message bound for a terminal as one line.
package enum TerminalLine {
    /// `text` with every control character (C0, DEL, C1: a line break, an escape sequence an
    /// argument smuggled in) shown as `\u{XX}`, so the message stays one line and cannot
    /// move the cursor or recolour the terminal; everything else as it is.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                shown += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
