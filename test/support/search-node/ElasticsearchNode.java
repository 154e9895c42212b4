// Test support: one Elasticsearch 7.10.2 node in this JVM. Args: <http port> <data dir> <transport port>. Prints READY when up.
import static org.codelibs.elasticsearch.runner.ElasticsearchClusterRunner.newConfigs;

import org.codelibs.elasticsearch.runner.ElasticsearchClusterRunner;

public class ElasticsearchNode {
    public static void main(String[] args) throws Exception {
        int httpPort = Integer.parseInt(args[0]);
        int transportPort = Integer.parseInt(args[2]);
        ElasticsearchClusterRunner runner = new ElasticsearchClusterRunner();
        runner.onBuild((number, settings) -> {
            settings.put("network.host", "127.0.0.1");
            settings.put("http.port", String.valueOf(httpPort));
            settings.put("transport.port", String.valueOf(transportPort));
            settings.put("cluster.routing.allocation.disk.threshold_enabled", false);
        }).build(newConfigs().numOfNode(1).basePath(args[1]).clusterName("paasmon-test").disableESLogger());
        runner.ensureYellow();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try { runner.close(); } catch (Exception e) { /* exiting anyway */ }
        }));
        System.out.println("READY");
        Thread.currentThread().join();
    }
}
