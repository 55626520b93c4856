create table reservation (id identity primary key, sku varchar(64) not null);
