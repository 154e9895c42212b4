// A bounded pool of JDBC connections, as node-postgres's pg.Pool({ max }) in the Node.js app:
// opened on demand up to `max`, a caller waits when all are in use, a broken one is discarded.
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Properties;

final class ConnectionPool implements AutoCloseable {
  private final String url;
  private final Properties properties;
  private final int max;
  private final ArrayDeque<Connection> idle = new ArrayDeque<>();
  private int open;
  private boolean closed;

  ConnectionPool(String url, Properties properties, int max) {
    this.url = url;
    this.properties = properties;
    this.max = max;
  }

  /** An idle connection, a new one while fewer than `max` are open, or the next one given back. */
  Connection borrow() throws SQLException, InterruptedException {
    synchronized (this) {
      for (;;) {
        if (closed) throw new SQLException("pool closed");
        if (!idle.isEmpty()) return idle.pop();
        if (open < max) {
          open++;
          break;
        }
        wait();
      }
    }
    try {
      return DriverManager.getConnection(url, properties);
    } catch (SQLException e) {
      synchronized (this) {
        open--;
        notifyAll();
      }
      throw e;
    }
  }

  /** Gives `connection` back; `failed`: it is closed when it no longer answers. */
  void release(Connection connection, boolean failed) {
    boolean broken = false;
    try {
      broken = failed && !connection.isValid(2);
    } catch (SQLException e) {
      broken = true;
    }
    synchronized (this) {
      if (broken || closed) {
        open--;
        quietly(connection);
      } else {
        idle.push(connection);
      }
      notifyAll();
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    while (!idle.isEmpty()) {
      open--;
      quietly(idle.pop());
    }
    notifyAll();
  }

  private static void quietly(Connection connection) {
    try {
      connection.close();
    } catch (SQLException e) {
      // already gone
    }
  }
}
