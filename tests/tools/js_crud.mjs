// AWS SDK for JavaScript v3 CRUD and Query against dynamopg; the endpoint
// comes from AWS_ENDPOINT_URL_DYNAMODB only. Run from the directory where
// @aws-sdk/client-dynamodb is installed.
import {
  DynamoDBClient, CreateTableCommand, PutItemCommand, GetItemCommand, UpdateItemCommand,
  QueryCommand, DeleteItemCommand, ScanCommand, DeleteTableCommand, waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";
import assert from "node:assert/strict";

const ver = JSON.parse((await import("node:fs")).readFileSync(process.cwd() + "/node_modules/@aws-sdk/client-dynamodb/package.json")).version;
console.log(`  @aws-sdk/client-dynamodb ${ver}`);
assert.ok(process.env.AWS_ENDPOINT_URL_DYNAMODB, "AWS_ENDPOINT_URL_DYNAMODB unset");
const c = new DynamoDBClient({});
const ep = await c.config.endpoint?.();
if (ep) assert.equal(`${ep.protocol}//${ep.hostname}:${ep.port}`, process.env.AWS_ENDPOINT_URL_DYNAMODB.replace(/\/$/, ""));
const T = "JsCrud";
await c.send(new CreateTableCommand({
  TableName: T, BillingMode: "PAY_PER_REQUEST",
  AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "N" }],
  KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
}));
await waitUntilTableExists({ client: c, maxWaitTime: 30 }, { TableName: T });
for (let i = 0; i < 10; i++) {
  await c.send(new PutItemCommand({ TableName: T, Item: { pk: { S: "u1" }, sk: { N: String(i) }, n: { N: String(i * 10) } } }));
}
const g = await c.send(new GetItemCommand({ TableName: T, Key: { pk: { S: "u1" }, sk: { N: "3" } }, ConsistentRead: true }));
assert.equal(g.Item.n.N, "30");
const u = await c.send(new UpdateItemCommand({
  TableName: T, Key: { pk: { S: "u1" }, sk: { N: "3" } }, UpdateExpression: "SET n = n + :d",
  ExpressionAttributeValues: { ":d": { N: "5" } }, ReturnValues: "UPDATED_NEW",
}));
assert.equal(u.Attributes.n.N, "35");
const q = await c.send(new QueryCommand({
  TableName: T, KeyConditionExpression: "pk = :p AND sk BETWEEN :a AND :b",
  ExpressionAttributeValues: { ":p": { S: "u1" }, ":a": { N: "2" }, ":b": { N: "5" } }, ScanIndexForward: false,
}));
assert.deepEqual(q.Items.map((x) => x.sk.N), ["5", "4", "3", "2"]);
await assert.rejects(c.send(new PutItemCommand({
  TableName: T, Item: { pk: { S: "u1" }, sk: { N: "3" } }, ConditionExpression: "attribute_not_exists(pk)",
})), (e) => e.name === "ConditionalCheckFailedException");
await c.send(new DeleteItemCommand({ TableName: T, Key: { pk: { S: "u1" }, sk: { N: "3" } } }));
const s = await c.send(new ScanCommand({ TableName: T, Select: "COUNT" }));
assert.equal(s.Count, 9);
await c.send(new DeleteTableCommand({ TableName: T }));
console.log("  js v3: create, put, get, update, query, conditional put, delete, scan, delete table: ok");
