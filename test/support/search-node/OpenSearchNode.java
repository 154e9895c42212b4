// Test support: one OpenSearch node in this JVM. Args: <http port> <data dir> <transport port>. Prints READY when up.
import static org.codelibs.opensearch.runner.OpenSearchRunner.newConfigs;

import org.codelibs.opensearch.runner.OpenSearchRunner;

public class OpenSearchNode {
    public static void main(String[] args) throws Exception {
        int httpPort = Integer.parseInt(args[0]);
        int transportPort = Integer.parseInt(args[2]);
        OpenSearchRunner runner = new OpenSearchRunner();
        runner.onBuild((number, settings) -> {
            settings.put("network.host", "127.0.0.1");
            settings.put("http.port", String.valueOf(httpPort));
            settings.put("transport.port", String.valueOf(transportPort));
            settings.put("cluster.routing.allocation.disk.threshold_enabled", false);
            settings.put("action.auto_create_index", true);
        }).build(newConfigs().numOfNode(1).basePath(args[1]).clusterName("paasmon-test").disableESLogger());
        runner.ensureYellow();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try { runner.close(); } catch (Exception e) { /* exiting anyway */ }
        }));
        System.out.println("READY");
        Thread.currentThread().join();
    }
}
