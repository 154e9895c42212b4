// JSON as the Node.js app writes and reads it: output escaped exactly as JSON.stringify does,
// input parsed with JSON.parse's strict grammar (objects as ordered maps, null as Json.NULL).
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

final class Json {
  /** JSON null in a parsed value (Java null means "no such key"). */
  static final Object NULL = new Object();

  /** Malformed JSON text: the Node.js app answers it with 400. */
  static final class SyntaxError extends Exception {
    SyntaxError(String message) {
      super(message);
    }
  }

  private Json() {}

  /** A string literal as JSON.stringify writes it (well-formed: lone surrogates escaped). */
  static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          boolean lone = Character.isHighSurrogate(c)
              ? i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))
              : Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)));
          if (c < 0x20 || lone) out.append(String.format("\\u%04x", (int) c));
          else out.append(c);
        }
      }
    }
    out.append('"');
  }

  /** Maps, lists, strings, integers, booleans and NULL, in the order given. */
  static void value(StringBuilder out, Object v) {
    if (v == null || v == NULL) out.append("null");
    else if (v instanceof String s) string(out, s);
    else if (v instanceof Integer || v instanceof Long || v instanceof Boolean) out.append(v);
    else if (v instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) out.append(',');
        first = false;
        string(out, (String) e.getKey());
        out.append(':');
        value(out, e.getValue());
      }
      out.append('}');
    } else if (v instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) out.append(',');
        value(out, list.get(i));
      }
      out.append(']');
    } else throw new IllegalArgumentException("no JSON form for " + v.getClass());
  }

  static String stringify(Object v) {
    StringBuilder out = new StringBuilder();
    value(out, v);
    return out.toString();
  }

  static Object parse(String text) throws SyntaxError {
    Parser p = new Parser(text);
    p.space();
    Object v = p.value();
    p.space();
    if (p.at < text.length()) throw p.unexpected();
    return v;
  }

  private static final class Parser {
    final String s;
    int at;

    Parser(String s) {
      this.s = s;
    }

    SyntaxError unexpected() {
      if (at >= s.length()) return new SyntaxError("Unexpected end of JSON input");
      return new SyntaxError("Unexpected token in JSON at position " + at);
    }

    void space() {
      while (at < s.length() && " \t\n\r".indexOf(s.charAt(at)) >= 0) at++;
    }

    void expect(char c) throws SyntaxError {
      if (at >= s.length() || s.charAt(at) != c) throw unexpected();
      at++;
    }

    Object value() throws SyntaxError {
      if (at >= s.length()) throw unexpected();
      char c = s.charAt(at);
      if (c == '{') return object();
      if (c == '[') return array();
      if (c == '"') return string();
      if (c == '-' || (c >= '0' && c <= '9')) return number();
      for (String word : new String[] {"true", "false", "null"}) {
        if (s.startsWith(word, at)) {
          at += word.length();
          return word.equals("null") ? NULL : Boolean.valueOf(word);
        }
      }
      throw unexpected();
    }

    Map<String, Object> object() throws SyntaxError {
      Map<String, Object> map = new LinkedHashMap<>();
      expect('{');
      space();
      if (at < s.length() && s.charAt(at) == '}') {
        at++;
        return map;
      }
      for (;;) {
        space();
        String key = string();
        space();
        expect(':');
        space();
        map.put(key, value());
        space();
        if (at < s.length() && s.charAt(at) == ',') at++;
        else break;
      }
      expect('}');
      return map;
    }

    List<Object> array() throws SyntaxError {
      List<Object> list = new ArrayList<>();
      expect('[');
      space();
      if (at < s.length() && s.charAt(at) == ']') {
        at++;
        return list;
      }
      for (;;) {
        space();
        list.add(value());
        space();
        if (at < s.length() && s.charAt(at) == ',') at++;
        else break;
      }
      expect(']');
      return list;
    }

    String string() throws SyntaxError {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (at < s.length()) {
        char c = s.charAt(at++);
        if (c == '"') return out.toString();
        if (c < 0x20) break;
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (at >= s.length()) break;
        char e = s.charAt(at++);
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (at + 4 > s.length() || !s.substring(at, at + 4).matches("[0-9a-fA-F]{4}")) throw unexpected();
            out.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
            at += 4;
          }
          default -> {
            at--;
            throw unexpected();
          }
        }
      }
      at--;
      throw unexpected();
    }

    Object number() throws SyntaxError {
      int start = at;
      if (s.charAt(at) == '-') at++;
      if (at < s.length() && s.charAt(at) == '0') at++;
      else if (!digits()) throw unexpected();
      if (at < s.length() && s.charAt(at) == '.') {
        at++;
        if (!digits()) throw unexpected();
      }
      if (at < s.length() && (s.charAt(at) == 'e' || s.charAt(at) == 'E')) {
        at++;
        if (at < s.length() && (s.charAt(at) == '+' || s.charAt(at) == '-')) at++;
        if (!digits()) throw unexpected();
      }
      return Double.valueOf(s.substring(start, at));
    }

    boolean digits() {
      int start = at;
      while (at < s.length() && Character.isDigit(s.charAt(at)) && s.charAt(at) < 128) at++;
      return at > start;
    }
  }
}
