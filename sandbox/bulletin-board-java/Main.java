// The sample app in Java, as the thesis built it: the JDK's HTTP server with a fixed thread pool,
// plain JDBC through a small connection pool, no ORM. Same endpoints, queries and JSON bodies as
// ../bulletin-board/server.js. PORT, CF_INSTANCE_INDEX, DATABASE_URL and BULLETIN_BOARD_DELAY_MS (a delay
// added to every answer but /health) come from the environment; SIGTERM stops the server and closes the
// connections.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.util.PSQLException;

public final class Main {
  static final String SCHEMA = "bulletin_board";
  /** As node-postgres's pool in the Node.js app. */
  static final int CONNECTIONS = 4;
  static final int THREADS = 8;
  static final String BOARD = "SELECT p.id, p.title, left(p.body, 120) AS excerpt, p.created_at, u.name AS author, "
      + "count(c.id)::int AS comments FROM " + SCHEMA + ".posts p JOIN " + SCHEMA + ".users u ON u.id = p.author_id "
      + "LEFT JOIN " + SCHEMA + ".comments c ON c.post_id = p.id WHERE p.id IN (SELECT id FROM " + SCHEMA
      + ".posts ORDER BY created_at DESC LIMIT 20) GROUP BY p.id, u.name ORDER BY p.created_at DESC";
  static final String POST = "SELECT p.*, u.name AS author FROM " + SCHEMA + ".posts p JOIN " + SCHEMA
      + ".users u ON u.id = p.author_id WHERE p.id = ?";
  static final String COMMENTS = "SELECT c.id, c.body, c.created_at, u.name AS author FROM " + SCHEMA
      + ".comments c JOIN " + SCHEMA + ".users u ON u.id = c.author_id WHERE c.post_id = ? ORDER BY c.created_at";
  static final String INSERT = "INSERT INTO " + SCHEMA + ".posts (author_id, title, body, created_at) VALUES ((SELECT min(id) FROM "
      + SCHEMA + ".users), ?, ?, now()) RETURNING id";
  static final Pattern POST_PATH = Pattern.compile("^/api/posts/(\\d+)$");
  /** Date.prototype.toISOString: milliseconds, UTC. */
  static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  record Reply(int status, Object body) {}

  static ConnectionPool pool;
  static int instanceIndex;
  static long delayMs;

  public static void main(String[] args) throws Exception {
    // Headers and body go out at once: without it Nagle's algorithm holds the body for the client's ACK.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    instanceIndex = Integer.parseInt(System.getenv().getOrDefault("CF_INSTANCE_INDEX", "0"));
    delayMs = Long.parseLong(System.getenv().getOrDefault("BULLETIN_BOARD_DELAY_MS", "0"));
    pool = openPool(System.getenv("DATABASE_URL"));
    int port = Integer.parseInt(System.getenv().getOrDefault("PORT", "8080"));
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    server.setExecutor(threads);
    server.createContext("/", Main::handle);
    server.start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.stop(0);
      threads.shutdownNow();
      pool.close();
    }));
  }

  /** postgres://user:password@host:port/database?options as a JDBC URL and its credentials. */
  static ConnectionPool openPool(String databaseUrl) throws Exception {
    URI uri = new URI(databaseUrl);
    Properties properties = new Properties();
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      String[] parts = userInfo.split(":", 2);
      properties.setProperty("user", URLDecoder.decode(parts[0], StandardCharsets.UTF_8));
      if (parts.length > 1) properties.setProperty("password", URLDecoder.decode(parts[1], StandardCharsets.UTF_8));
    }
    String host = uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
    String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
    return new ConnectionPool("jdbc:postgresql://" + host + uri.getRawPath() + query, properties, CONNECTIONS);
  }

  static void handle(HttpExchange exchange) throws IOException {
    Reply reply;
    try {
      byte[] body = exchange.getRequestBody().readAllBytes();
      reply = route(exchange.getRequestMethod(), exchange.getRequestURI(), new String(body, StandardCharsets.UTF_8));
    } catch (Json.SyntaxError e) {
      reply = error(400, e.getMessage());
    } catch (PSQLException e) {
      reply = error(500, e.getServerErrorMessage() != null ? e.getServerErrorMessage().getMessage() : e.getMessage());
    } catch (Exception e) {
      reply = error(500, String.valueOf(e.getMessage()));
    }
    byte[] bytes = Json.stringify(reply.body()).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(reply.status(), bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  static Reply error(int status, String message) {
    return new Reply(status, Map.of("error", message));
  }

  static Reply route(String method, URI uri, String body) throws Exception {
    String path = uri.normalize().getRawPath();
    if (path.equals("/health")) {
      Map<String, Object> health = new LinkedHashMap<>();
      health.put("status", "ok");
      health.put("instance", instanceIndex);
      return new Reply(200, health);
    }
    if (delayMs > 0) Thread.sleep(delayMs);
    if (method.equals("GET") && path.equals("/api/board")) return new Reply(200, Map.of("posts", query(BOARD)));
    Matcher post = POST_PATH.matcher(path);
    if (method.equals("GET") && post.matches()) {
      List<Map<String, Object>> found = query(POST, post.group(1));
      List<Map<String, Object>> comments = query(COMMENTS, post.group(1));
      if (found.isEmpty()) return error(404, "no such post");
      Map<String, Object> result = found.get(0);
      result.put("comments", comments);
      return new Reply(200, result);
    }
    if (method.equals("POST") && path.equals("/api/posts")) return create(Json.parse(body.isEmpty() ? "{}" : body));
    return error(404, "not found");
  }

  static Reply create(Object parsed) throws Exception {
    if (parsed == Json.NULL) throw new Exception("Cannot read properties of null (reading 'title')");
    Map<?, ?> fields = parsed instanceof Map<?, ?> map ? map : Map.of();
    if (!(fields.get("title") instanceof String title) || !(fields.get("body") instanceof String text)) {
      return error(400, "title and body are required");
    }
    List<Map<String, Object>> rows = query(INSERT, title, text);
    return new Reply(201, Map.of("id", rows.get(0).get("id")));
  }

  /** Rows as node-postgres returns them: columns in order, int4 as numbers, timestamps as ISO strings. */
  static List<Map<String, Object>> query(String sql, String... parameters) throws Exception {
    Connection connection = pool.borrow();
    boolean failed = true;
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      // Untyped, as node-postgres sends its parameters: the server infers each one's type.
      for (int i = 0; i < parameters.length; i++) statement.setObject(i + 1, parameters[i], Types.OTHER);
      List<Map<String, Object>> rows = new ArrayList<>();
      try (ResultSet rs = statement.executeQuery()) {
        ResultSetMetaData meta = rs.getMetaData();
        while (rs.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int c = 1; c <= meta.getColumnCount(); c++) row.put(meta.getColumnLabel(c), column(rs, meta, c));
          rows.add(row);
        }
      }
      failed = false;
      return rows;
    } finally {
      pool.release(connection, failed);
    }
  }

  static Object column(ResultSet rs, ResultSetMetaData meta, int c) throws SQLException {
    Object value = switch (meta.getColumnType(c)) {
      case Types.INTEGER, Types.SMALLINT -> rs.getInt(c);
      case Types.BIT, Types.BOOLEAN -> rs.getBoolean(c);
      case Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE -> {
        OffsetDateTime time = rs.getObject(c, OffsetDateTime.class);
        yield time == null ? null : ISO.format(time.toInstant());
      }
      // int8 and numeric too: node-postgres leaves them as strings.
      default -> rs.getString(c);
    };
    return rs.wasNull() ? Json.NULL : value;
  }
}
