#!/usr/bin/env python3
"""boto3 CRUD and Query against dynamopg, the endpoint taken from
AWS_ENDPOINT_URL_DYNAMODB only (no endpoint_url argument): boto3 >= 1.28."""
import os
import sys

import boto3
import botocore

ver = tuple(int(x) for x in boto3.__version__.split(".")[:2])
print(f"  boto3 {boto3.__version__}, botocore {botocore.__version__}")
if ver < (1, 28):
    sys.exit("boto3 < 1.28 does not read AWS_ENDPOINT_URL_DYNAMODB")
assert os.environ.get("AWS_ENDPOINT_URL_DYNAMODB"), "AWS_ENDPOINT_URL_DYNAMODB unset"

c = boto3.client("dynamodb")
assert c.meta.endpoint_url == os.environ["AWS_ENDPOINT_URL_DYNAMODB"], c.meta.endpoint_url
t = "Boto3Crud"
c.create_table(TableName=t, BillingMode="PAY_PER_REQUEST",
               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"}],
               KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}])
c.get_waiter("table_exists").wait(TableName=t)
table = boto3.resource("dynamodb").Table(t)
for i in range(10):
    table.put_item(Item={"pk": "user#1", "sk": i, "n": i * 10, "tags": {"a", "b"}})
table.put_item(Item={"pk": "user#2", "sk": 0})
assert table.get_item(Key={"pk": "user#1", "sk": 3}, ConsistentRead=True)["Item"]["n"] == 30
r = table.update_item(Key={"pk": "user#1", "sk": 3}, UpdateExpression="SET n = n + :d",
                      ExpressionAttributeValues={":d": 5}, ReturnValues="UPDATED_NEW")
assert r["Attributes"]["n"] == 35, r
from boto3.dynamodb.conditions import Key
q = table.query(KeyConditionExpression=Key("pk").eq("user#1") & Key("sk").between(2, 5), ScanIndexForward=False)
assert [int(x["sk"]) for x in q["Items"]] == [5, 4, 3, 2], q["Items"]
try:
    table.put_item(Item={"pk": "user#1", "sk": 3}, ConditionExpression="attribute_not_exists(pk)")
    sys.exit("conditional put should have failed")
except c.exceptions.ConditionalCheckFailedException:
    pass
table.delete_item(Key={"pk": "user#1", "sk": 3})
assert "Item" not in table.get_item(Key={"pk": "user#1", "sk": 3})
assert table.scan(Select="COUNT")["Count"] == 10
c.delete_table(TableName=t)
print("  boto3: create, put, get, update, query, conditional put, delete, scan, delete table: ok")
